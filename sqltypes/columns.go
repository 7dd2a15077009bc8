package sqltypes

// Dialect names as GORM's dialectors report them (Dialector.Name()).
const (
	DialectPostgres  = "postgres"
	DialectMySQL     = "mysql" // also MariaDB
	DialectSQLite    = "sqlite"
	DialectSQLServer = "sqlserver"
)

// ObjectIDColumnType returns the column type for a raw 12-byte ObjectID
// ([github.com/idkit-go/idkit/types.ObjectID]) in dialect: bytea (PostgreSQL),
// binary(12) (MySQL/MariaDB, SQL Server), blob (SQLite), and "" for a dialect
// it does not know. It is the type GORM's AutoMigrate creates for
// types.ObjectID fields.
func ObjectIDColumnType(dialect string) string {
	switch dialect {
	case DialectPostgres:
		return "bytea"
	case DialectMySQL, DialectSQLServer:
		return "binary(12)"
	case DialectSQLite:
		return "blob"
	default:
		return ""
	}
}

// HexObjectIDColumnType returns the column type for an ObjectID stored as 24
// hex characters ([HexObjectID]): char(24) in PostgreSQL, MySQL/MariaDB and
// SQL Server, text in SQLite, and "" for a dialect it does not know.
func HexObjectIDColumnType(dialect string) string {
	switch dialect {
	case DialectPostgres, DialectMySQL, DialectSQLServer:
		return "char(24)"
	case DialectSQLite:
		return "text"
	default:
		return ""
	}
}

// SnowflakeColumnType returns the column type for a Snowflake: bigint in
// every dialect (a plain 64-bit integer, with no sequence, identity or
// AUTO_INCREMENT).
func SnowflakeColumnType(dialect string) string { return "bigint" }

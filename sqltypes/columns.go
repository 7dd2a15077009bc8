package sqltypes

import (
	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/internal/sqlcol"
)

// Dialect names as GORM's dialectors report them (Dialector.Name()).
const (
	DialectPostgres  = sqlcol.Postgres
	DialectMySQL     = sqlcol.MySQL // also MariaDB
	DialectSQLite    = sqlcol.SQLite
	DialectSQLServer = sqlcol.SQLServer
)

// ObjectIDColumnType returns the column type for a raw 12-byte ObjectID
// ([github.com/idkit-go/idkit/types.ObjectID]) in dialect: bytea (PostgreSQL),
// binary(12) (MySQL/MariaDB, SQL Server), blob (SQLite), and "" for a dialect
// it does not know. It is the type GORM's AutoMigrate creates for
// types.ObjectID fields (a primary key also gets NOT NULL).
func ObjectIDColumnType(dialect string) string { return sqlcol.ObjectID(dialect) }

// HexObjectIDColumnType returns the column type for an ObjectID stored as 24
// hex characters ([HexObjectID]): char(24) in PostgreSQL, MySQL/MariaDB and
// SQL Server, text in SQLite, and "" for a dialect it does not know.
func HexObjectIDColumnType(dialect string) string { return sqlcol.HexObjectID(dialect) }

// SnowflakeColumnType returns the column type for a Snowflake: bigint in
// every dialect (a plain 64-bit integer, with no sequence, identity or
// AUTO_INCREMENT).
func SnowflakeColumnType(dialect string) string { return sqlcol.Snowflake(dialect) }

// hexGormType is the type AutoMigrate writes for a hex ObjectID field f.
// On PostgreSQL it is spelled bpchar(24), the name the catalog reports for
// char(24), so that a second AutoMigrate sees the same type and issues no
// ALTER COLUMN.
func hexGormType(dialect string, f *schema.Field) string {
	typ := sqlcol.HexObjectID(dialect)
	if dialect == DialectPostgres {
		typ = "bpchar(24)"
	}
	if f == nil {
		return typ
	}
	return sqlcol.Gorm(typ, f.PrimaryKey, f.NotNull)
}

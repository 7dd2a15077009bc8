package sqltypes

import (
	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/internal/sqlcol"
)

// Dialect is an SQL dialect, named as GORM's dialectors name themselves
// (Dialector.Name(): "postgres", "mysql" for MySQL and MariaDB, "sqlite",
// "sqlserver"), so that sqltypes.Dialect(db.Dialector.Name()) converts a
// GORM connection's. It is the one dialect type of idkit: the column-type
// functions here take it, and so do the SQL-backed generators in
// [github.com/idkit-go/idkit/generator/node] and
// [github.com/idkit-go/idkit/generator/segment], where the zero value
// means "detect from the driver" (they take PostgreSQL, MySQL/MariaDB and
// SQLite). It is declared in an internal package that imports nothing, so
// those generators name it without compiling GORM.
type Dialect = sqlcol.Dialect

// The dialects.
const (
	DialectPostgres  Dialect = sqlcol.Postgres
	DialectMySQL     Dialect = sqlcol.MySQL // also MariaDB
	DialectSQLite    Dialect = sqlcol.SQLite
	DialectSQLServer Dialect = sqlcol.SQLServer
)

// ObjectIDColumnType returns the column type for a raw 12-byte ObjectID
// ([github.com/idkit-go/idkit/types.ObjectID]) in dialect: bytea (PostgreSQL),
// binary(12) (MySQL/MariaDB, SQL Server), blob (SQLite), and "" for a dialect
// it does not know. It is the type GORM's AutoMigrate creates for
// types.ObjectID fields (a primary key also gets NOT NULL).
func ObjectIDColumnType(d Dialect) string { return sqlcol.ObjectID(d) }

// HexObjectIDColumnType returns the column type for an ObjectID stored as 24
// hex characters ([HexObjectID]): char(24) in PostgreSQL, MySQL/MariaDB and
// SQL Server, text in SQLite, and "" for a dialect it does not know.
func HexObjectIDColumnType(d Dialect) string { return sqlcol.HexObjectID(d) }

// SnowflakeColumnType returns the column type for a Snowflake: bigint in
// every dialect (a plain 64-bit integer, with no sequence, identity or
// AUTO_INCREMENT).
func SnowflakeColumnType(d Dialect) string { return sqlcol.Snowflake(d) }

// hexGormType is the type AutoMigrate writes for a hex ObjectID field f.
// On PostgreSQL it is spelled bpchar(24), the name the catalog reports for
// char(24), so that a second AutoMigrate sees the same type and issues no
// ALTER COLUMN.
func hexGormType(d Dialect, f *schema.Field) string {
	typ := sqlcol.HexObjectID(d)
	if d == DialectPostgres {
		typ = "bpchar(24)"
	}
	if f == nil {
		return typ
	}
	return sqlcol.Gorm(typ, f.PrimaryKey, f.NotNull)
}

package sqltypes

import (
	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/dialect"
	"github.com/idkit-go/idkit/internal/sqlcol"
)

// ObjectIDColumnType returns the column type for a raw 12-byte ObjectID
// ([github.com/idkit-go/idkit/types.ObjectID]) in d: bytea (PostgreSQL),
// binary(12) (MySQL/MariaDB, SQL Server), blob (SQLite), and "" for a
// dialect it does not know. It is the type GORM's AutoMigrate creates for
// types.ObjectID fields (a primary key also gets NOT NULL). A Snowflake
// column is bigint in every dialect.
func ObjectIDColumnType(d dialect.Dialect) string { return sqlcol.ObjectID(d) }

// HexObjectIDColumnType returns the column type for an ObjectID stored as 24
// hex characters ([HexObjectID]): char(24) in PostgreSQL, MySQL/MariaDB and
// SQL Server, text in SQLite, and "" for a dialect it does not know.
func HexObjectIDColumnType(d dialect.Dialect) string { return sqlcol.HexObjectID(d) }

// hexGormType is the type AutoMigrate writes for a hex ObjectID field f.
// On PostgreSQL it is spelled bpchar(24), the name the catalog reports for
// char(24), so that a second AutoMigrate sees the same type and issues no
// ALTER COLUMN.
func hexGormType(d dialect.Dialect, f *schema.Field) string {
	typ := sqlcol.HexObjectID(d)
	if d == dialect.Postgres {
		typ = "bpchar(24)"
	}
	if f == nil {
		return typ
	}
	return sqlcol.Gorm(typ, f.PrimaryKey, f.NotNull)
}

// UUIDColumnType returns the column type for a raw 16-byte UUID
// ([github.com/idkit-go/idkit/types.UUID], or Go's uuid.UUID with the GORM
// plugin) in d: uuid (PostgreSQL), binary(16) (MySQL/MariaDB, SQL Server),
// blob (SQLite), and "" for a dialect it does not know. It is the type
// GORM's AutoMigrate creates for types.UUID fields (a primary key also gets
// NOT NULL).
func UUIDColumnType(d dialect.Dialect) string { return sqlcol.UUID(d) }

//go:build !idkit_nogorm

package types

// This file and uuid_gorm.go are the only ones in package types that import
// GORM, and only its small gorm and gorm/schema packages (no SQL driver): the column types below
// depend on the dialect, which GORM passes as a *gorm.DB, and GORM finds
// them only through a method whose signature names *gorm.DB.
//
// Without this file, importing types compiles no GORM package and a
// program's binary is smaller (docs/dependencies.md in the repository gives
// the measured counts and sizes). The files stay, so that AutoMigrate makes
// bytea, BINARY(12) or BLOB keys with no setup. A program that never uses
// GORM can build with -tags idkit_nogorm to leave GORM out: the types then
// declare only GORM's generic data types (see gorm_nogorm.go), which suit
// no GORM schema.

import (
	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/internal/sqlcol"
)

// snowflakeGormType is the GORM data type of [Snowflake] columns. It is not
// GORM's generic "int", so GORM does not make a Snowflake primary key
// auto-increment (no sequence, identity or AUTO_INCREMENT, no RETURNING or
// LastInsertId back-fill); it is copied to foreign keys that reference a
// Snowflake key, so it must be valid SQL in every dialect.
const snowflakeGormType = "bigint"

// GormDataType returns "bigint": the GORM data type of a Snowflake column.
// It is deliberately not GORM's "int", which would make a Snowflake primary
// key auto-increment. It is safe for concurrent use.
func (Snowflake) GormDataType() string { return snowflakeGormType }

// GormDBDataType returns the column type AutoMigrate creates for a
// Snowflake: a plain BIGINT, NOT NULL when the field is a primary key (on
// every dialect, SQLite included). It is safe for concurrent use.
func (Snowflake) GormDBDataType(db *gorm.DB, f *schema.Field) string {
	return gormType(sqlcol.Snowflake(dialect(db)), f)
}

// GormDataType returns "bigint", as [Snowflake.GormDataType] does.
func (NullSnowflake) GormDataType() string { return snowflakeGormType }

// GormDBDataType returns the column type of [Snowflake.GormDBDataType]; the
// column is nullable unless it is a primary key or tagged not null.
func (NullSnowflake) GormDBDataType(db *gorm.DB, f *schema.Field) string {
	return gormType(sqlcol.Snowflake(dialect(db)), f)
}

// GormDataType returns GORM's "bytes" data type for an ObjectID column; see
// [ObjectID.GormDBDataType] for the column type each dialect gets.
func (ObjectID) GormDataType() string { return string(schema.Bytes) }

// GormDBDataType returns the column type AutoMigrate creates for an ObjectID:
// bytea on PostgreSQL, binary(12) on MySQL/MariaDB and SQL Server, blob on
// SQLite, and "" (GORM's default for bytes) on other dialects; NOT NULL is
// added for a primary key (on every dialect, SQLite included). It is safe
// for concurrent use.
func (ObjectID) GormDBDataType(db *gorm.DB, f *schema.Field) string {
	return gormType(sqlcol.ObjectID(dialect(db)), f)
}

// GormDataType returns GORM's "bytes" data type, as [ObjectID.GormDataType]
// does.
func (NullObjectID) GormDataType() string { return string(schema.Bytes) }

// GormDBDataType returns the column types of [ObjectID.GormDBDataType]; the
// column is nullable unless it is a primary key or tagged not null.
func (NullObjectID) GormDBDataType(db *gorm.DB, f *schema.Field) string {
	return gormType(sqlcol.ObjectID(dialect(db)), f)
}

func dialect(db *gorm.DB) sqlcol.Dialect {
	if db == nil || db.Dialector == nil {
		return ""
	}
	return sqlcol.Dialect(db.Dialector.Name())
}

func gormType(typ string, f *schema.Field) string {
	if f == nil {
		return typ
	}
	return sqlcol.Gorm(typ, f.PrimaryKey, f.NotNull)
}

//go:build !idkit_nogorm

package types

import (
	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/internal/sqlcol"
)

// GormDataType returns GORM's "bytes" data type for a UUID column; see
// [UUID.GormDBDataType] for the column type each dialect gets.
func (UUID) GormDataType() string { return string(schema.Bytes) }

// GormDBDataType returns the column type AutoMigrate creates for a UUID:
// uuid on PostgreSQL, binary(16) on MySQL/MariaDB and SQL Server, blob on
// SQLite, "" (GORM's default) elsewhere; NOT NULL for a primary key.
func (UUID) GormDBDataType(db *gorm.DB, f *schema.Field) string {
	return gormType(sqlcol.UUID(dialect(db)), f)
}

// GormDataType returns GORM's "bytes" data type, as [UUID.GormDataType]
// does.
func (NullUUID) GormDataType() string { return string(schema.Bytes) }

// GormDBDataType returns the column types of [UUID.GormDBDataType]; the
// column is nullable unless it is a primary key or tagged not null.
func (NullUUID) GormDBDataType(db *gorm.DB, f *schema.Field) string {
	return gormType(sqlcol.UUID(dialect(db)), f)
}

// Package sqlcol holds the SQL column types of the idkit ID types per
// dialect, in one place for package types (GORM's AutoMigrate), package
// sqltypes (hand-written DDL) and the SQL-backed generators. It imports
// only package dialect, so that the generators compile no GORM.
package sqlcol

import "github.com/idkit-go/idkit/dialect"

// Dialect is [dialect.Dialect], under a short name for this module's code.
type Dialect = dialect.Dialect

// The dialects, as in package dialect.
const (
	Postgres  = dialect.Postgres
	MySQL     = dialect.MySQL
	SQLite    = dialect.SQLite
	SQLServer = dialect.SQLServer
)

// ObjectID returns the column type of a raw 12-byte ObjectID: bytea
// (PostgreSQL), binary(12) (MySQL/MariaDB, SQL Server), blob (SQLite), and
// "" for a dialect it does not know.
func ObjectID(d Dialect) string {
	switch d {
	case Postgres:
		return "bytea"
	case MySQL, SQLServer:
		return "binary(12)"
	case SQLite:
		return "blob"
	}
	return ""
}

// HexObjectID returns the column type of an ObjectID stored as 24 hex
// characters: char(24) (PostgreSQL, MySQL/MariaDB, SQL Server), text
// (SQLite), and "" for a dialect it does not know.
func HexObjectID(d Dialect) string {
	switch d {
	case Postgres, MySQL, SQLServer:
		return "char(24)"
	case SQLite:
		return "text"
	}
	return ""
}

// Snowflake returns the column type of a Snowflake: bigint in every
// dialect (no sequence, identity or AUTO_INCREMENT).
func Snowflake(Dialect) string { return "bigint" }

// Gorm returns typ as the type GORM's AutoMigrate should write for a field:
// a primary key not already tagged not null gets " NOT NULL", because
// SQLite, unlike PostgreSQL and MySQL, lets a non-integer primary key hold
// NULL. GORM compares neither the type nor the nullability of a primary key
// when it migrates again, so the suffix causes no ALTER. An empty typ stays
// empty (GORM then picks its default).
func Gorm(typ string, primaryKey, notNull bool) string {
	if typ == "" || !primaryKey || notNull {
		return typ
	}
	return typ + " NOT NULL"
}

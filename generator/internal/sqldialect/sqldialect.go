// Package sqldialect holds what the SQL-backed generators (node leases and
// segments) need to know about a database: which dialect it speaks, how to
// write a placeholder, and whether a table name is safe to splice into SQL.
package sqldialect

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Dialect is an SQL dialect: [Postgres], [MySQL] (also MariaDB) or
// [SQLite]. The zero value, [Auto], means "detect from the driver".
type Dialect int

// The dialects.
const (
	Auto Dialect = iota
	Postgres
	MySQL
	SQLite
)

// String returns the dialect's name.
func (d Dialect) String() string {
	switch d {
	case Postgres:
		return "postgres"
	case MySQL:
		return "mysql"
	case SQLite:
		return "sqlite"
	}
	return "auto"
}

// Resolve returns d, or for [Auto] the dialect detected from db's driver
// type name (pgx, lib/pq, go-sql-driver/mysql, mattn/go-sqlite3,
// modernc.org/sqlite). ok is false when it cannot tell.
func Resolve(db *sql.DB, d Dialect) (Dialect, bool) {
	if d != Auto {
		return d, d >= Postgres && d <= SQLite
	}
	name := strings.ToLower(fmt.Sprintf("%T", db.Driver()))
	switch {
	case strings.Contains(name, "pgx"), strings.Contains(name, "stdlib"), strings.Contains(name, "pq."):
		return Postgres, true
	case strings.Contains(name, "mysql"):
		return MySQL, true
	case strings.Contains(name, "sqlite"):
		return SQLite, true
	}
	return Auto, false
}

// P returns the i-th (1-based) placeholder: $i on PostgreSQL, ? elsewhere.
func (d Dialect) P(i int) string {
	if d == Postgres {
		return fmt.Sprintf("$%d", i)
	}
	return "?"
}

var ident = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// ValidIdent reports whether name is a plain SQL identifier (letters,
// digits, underscores, not starting with a digit, at most 63 characters),
// safe to splice into a statement unquoted.
func ValidIdent(name string) bool { return ident.MatchString(name) }

// CreateTable runs create, a CREATE TABLE IF NOT EXISTS statement for
// table, tolerating the race in which a concurrent creator wins
// (PostgreSQL then reports a duplicate type): it succeeds if the table can
// be read afterwards. It tries three times and returns the last error of
// create, unwrapped, for the caller to wrap.
func CreateTable(ctx context.Context, db *sql.DB, create, table string) error {
	var err error
	for range 3 {
		if _, err = db.ExecContext(ctx, create); err == nil {
			return nil
		}
		if _, e := db.ExecContext(ctx, "SELECT 1 FROM "+table+" WHERE 1 = 0"); e == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

// Package sqldialect holds what the SQL-backed generators (node leases and
// segments) need to know about a database: which dialect it speaks,
// whether a table name is safe to splice into SQL, how to create a table
// once, and what the primary's replicas have acknowledged (replicas.go).
// The dialect type itself is [dialect.Dialect].
package sqldialect

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/idkit-go/idkit/dialect"
)

// Resolve returns d, or for the zero Dialect the dialect detected from db's
// driver type name (pgx, lib/pq, go-sql-driver/mysql, mattn/go-sqlite3,
// modernc.org/sqlite). ok is false when it cannot tell, or when d is not
// one the generators speak (PostgreSQL, MySQL/MariaDB, SQLite).
func Resolve(db *sql.DB, d dialect.Dialect) (dialect.Dialect, bool) {
	switch d {
	case dialect.Postgres, dialect.MySQL, dialect.SQLite:
		return d, true
	case "":
	default:
		return d, false
	}
	name := strings.ToLower(fmt.Sprintf("%T", db.Driver()))
	switch {
	case strings.Contains(name, "pgx"), strings.Contains(name, "stdlib"), strings.Contains(name, "pq."):
		return dialect.Postgres, true
	case strings.Contains(name, "mysql"):
		return dialect.MySQL, true
	case strings.Contains(name, "sqlite"):
		return dialect.SQLite, true
	}
	return "", false
}

// P returns the placeholder of the i-th statement argument in d: $i on
// PostgreSQL, ? elsewhere.
func P(d dialect.Dialect, i int) string {
	if d == dialect.Postgres {
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
// table, unless the table can already be read, tolerating the race in
// which a concurrent creator wins (PostgreSQL then reports a duplicate
// type): it succeeds if the table can be read afterwards. It tries three times and returns the last error of
// create, unwrapped, for the caller to wrap.
func CreateTable(ctx context.Context, db *sql.DB, create, table string) error {
	// A CREATE TABLE IF NOT EXISTS per caller is slow when a fleet
	// starts at once.
	if rows, err := db.QueryContext(ctx, "SELECT 1 FROM "+table+" WHERE 1 = 0"); err == nil {
		return rows.Close()
	}
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

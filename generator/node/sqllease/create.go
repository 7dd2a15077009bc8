package sqllease

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/idkit-go/idkit/dialect"
	"github.com/idkit-go/idkit/generator"
)

// createLeaseTable creates the lease table with its identity row, in one
// step (see identity.go): a table that exists without the row has
// lost it. PostgreSQL and SQLite create both in one transaction; MySQL,
// whose DDL commits at once, fills a table of a temporary name and renames
// it. A table from before the version column gets the column. Concurrent
// creators race harmlessly: the loser finds the table. A busy SQLite
// database is retried (busyRetry).
func createLeaseTable(ctx context.Context, db *sql.DB, d dialect.Dialect, s sqlStmts, table string) error {
	var readErr error // why the table could not be read last
	readable := func(cols string) bool {
		readErr = busyRetry(ctx, func() error {
			rows, err := db.QueryContext(ctx, "SELECT "+cols+" FROM "+table+" WHERE 1 = 0")
			if err != nil {
				return err
			}
			return rows.Close()
		})
		return readErr == nil
	}
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if readable("version") {
			return nil
		}
		if readable("node") {
			// The table may have appeared between the two reads (another
			// process created it): read the column again before the
			// ALTER, whose exclusive lock would queue every reader of the
			// table behind it.
			if readable("version") {
				return nil
			}
			if _, err = db.ExecContext(ctx, s.addVer); err == nil {
				return nil
			}
		} else if err = busyRetry(ctx, func() error { return createWithIdentity(ctx, db, d, s, table) }); err == nil {
			return nil
		}
		if ctx.Err() != nil {
			break
		}
		time.Sleep(time.Duration(attempt+1) * 20 * time.Millisecond)
	}
	if readable("version") {
		return nil
	}
	if ctx.Err() == nil && readErr != nil && !missingTable(readErr) {
		return deniedTable(ctx, db, d, s, table, readErr, err)
	}
	return fmt.Errorf("sqllease: create table %s: %w", table, err)
}

// missingTable reports whether err says the table does not exist
// (PostgreSQL 42P01, MySQL 1146, SQLite "no such table").
func missingTable(err error) bool {
	m := strings.ToLower(err.Error())
	return strings.Contains(m, "does not exist") || strings.Contains(m, "doesn't exist") || strings.Contains(m, "no such table") ||
		strings.Contains(m, "42p01") || strings.Contains(m, "1146")
}

// deniedTable is the error of a table that could be neither read (readErr,
// not a missing table) nor created (createErr): when the server shows the
// table exists, the role lacks its grants, and creating it was the wrong
// thing to report. It wraps [generator.ErrInvalidConfig] and names the
// grants and the page with the table's DDL, for teams whose migrations own
// the schema.
func deniedTable(ctx context.Context, db *sql.DB, d dialect.Dialect, s sqlStmts, table string, readErr, createErr error) error {
	const page = "https://github.com/idkit-go/idkit/blob/main/docs/leases.md#the-lease-table-in-a-migration"
	var role string
	switch d {
	case dialect.Postgres:
		_ = db.QueryRowContext(ctx, "SELECT quote_ident(current_user)").Scan(&role)
	case dialect.MySQL:
		_ = db.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&role)
	}
	if role == "" {
		role = "<role>"
	}
	grant := "GRANT SELECT, INSERT, UPDATE ON " + table + " TO " + role
	if d == dialect.Postgres {
		grant += " (and on a primary with replicas, GRANT pg_monitor TO " + role + ")"
	}
	var n int64
	if err := db.QueryRowContext(ctx, s.exists).Scan(&n); err == nil && n == 1 {
		return fmt.Errorf("%w: sqllease: lease table %s exists but this role cannot read or write it (%v): %s; the table's DDL, for migrations that own it: %s",
			generator.ErrInvalidConfig, table, readErr, grant, page)
	}
	// MySQL shows no table to a user without a grant on it: either it is
	// missing and cannot be created, or it exists and cannot be read.
	return fmt.Errorf("%w: sqllease: lease table %s can be neither read (%v) nor created (%v): if it exists, %s; if not, let a role with CREATE create it, or create it in a migration: %s",
		generator.ErrInvalidConfig, table, readErr, createErr, grant, page)
}

func createWithIdentity(ctx context.Context, db *sql.DB, d dialect.Dialect, s sqlStmts, table string) error {
	if d == dialect.MySQL {
		tmp := "idkit_new_" + rand.Text()[:16]
		if _, err := db.ExecContext(ctx, s.create(tmp)); err != nil {
			return err
		}
		defer db.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+tmp) //nolint:errcheck // gone after the rename
		if _, err := db.ExecContext(ctx, fmt.Sprintf(s.ident, tmp)); err != nil {
			return err
		}
		_, err := db.ExecContext(ctx, "RENAME TABLE "+tmp+" TO "+table)
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	if _, err := tx.ExecContext(ctx, s.create(table)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(s.ident, table)); err != nil {
		return err
	}
	return tx.Commit()
}

package sqllease

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"time"

	"github.com/idkit-go/idkit/dialect"
)

// createLeaseTable creates the lease table with its identity row, in one
// step (see identity.go): a table that exists without the row has
// lost it. PostgreSQL and SQLite create both in one transaction; MySQL,
// whose DDL commits at once, fills a table of a temporary name and renames
// it. A table from before the version column gets the column. Concurrent
// creators race harmlessly: the loser finds the table. A busy SQLite
// database is retried (busyRetry).
func createLeaseTable(ctx context.Context, db *sql.DB, d dialect.Dialect, s sqlStmts, table string) error {
	readable := func(cols string) bool {
		return busyRetry(ctx, func() error {
			rows, err := db.QueryContext(ctx, "SELECT "+cols+" FROM "+table+" WHERE 1 = 0")
			if err != nil {
				return err
			}
			return rows.Close()
		}) == nil
	}
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if readable("version") {
			return nil
		}
		if readable("node") {
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
	return fmt.Errorf("sqllease: create table %s: %w", table, err)
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

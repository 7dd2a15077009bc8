package segment

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/idkit-go/idkit/dialect"
	"github.com/idkit-go/idkit/generator/internal/sqldialect"
)

// What keeps a segment from being handed out twice when the database
// forgets or loses writes (docs/generators.md, "Segments: store faults"),
// with the rules of the SQL lease store:
//
//   - A tag's row is seeded once. The record row counts the rows seeded;
//     a New that finds its tag's row missing seeds it only if the table
//     holds as many tag rows as it counts (the tag is new), and otherwise
//     refuses with ErrLost: a row was deleted.
//   - A fetch returns a segment only once the replicas have the UPDATE:
//     on PostgreSQL once as many streaming replicas as stream now (and as
//     the record row counts under the server's identity: one that left
//     may have been promoted) flushed the WAL past it; on MySQL and
//     MariaDB only while semi-synchronous replication (AFTER_SYNC) is in
//     force with as many replicas. New refuses a primary whose replicas
//     cannot acknowledge, unless AllowSplitBrain.
//   - A fetch that finds the server's identity changed adopts it if the
//     record row shows the replicas acknowledged the old server's writes
//     (a failover to a replica that has every segment handed out), and
//     otherwise records a loss; so does a fetch that finds max_id below
//     what this allocator saw (the row set back). A recorded loss fails
//     every fetch of every allocator of the table with ErrLost until the
//     operator clears it.

// guard is what New learned of the server: the SQL expressions of its
// identity and of its replicas streaming now.
type guard struct {
	ident    string // "''" if it cannot be read
	replicas string
}

// probe reads what the server tells of its identity and replicas, and
// refuses a primary whose replicas cannot acknowledge writes unless split.
func probe(ctx context.Context, db *sql.DB, d dialect.Dialect, split bool) (guard, error) {
	g := guard{ident: "''", replicas: "0"}
	switch d {
	case dialect.Postgres:
		var id string
		if err := db.QueryRowContext(ctx, `SELECT `+sqldialect.PGIdent).Scan(&id); err == nil {
			g.ident = sqldialect.PGIdent
		} else {
			var standby bool
			if err := db.QueryRowContext(ctx, `SELECT pg_is_in_recovery()`).Scan(&standby); err != nil {
				return g, err
			}
			if standby {
				return g, errors.New("the server is a standby in recovery")
			}
		}
		count, blind, err := sqldialect.Replicas(ctx, db, d, false)
		if err != nil {
			return g, err
		}
		g.replicas = count
		if blind != "" && !split {
			return g, fmt.Errorf("%w: %s, or set segment.Options.AllowSplitBrain to accept the risk", ErrInvalidConfig, blind)
		}
	case dialect.MySQL:
		var version string
		if err := db.QueryRowContext(ctx, `SELECT VERSION()`).Scan(&version); err != nil {
			return g, err
		}
		mariadb := strings.Contains(strings.ToLower(version), "mariadb")
		g.ident = sqldialect.MySQLIdent
		if mariadb {
			g.ident = sqldialect.MariaDBIdent
		}
		count, blind, err := sqldialect.Replicas(ctx, db, d, mariadb)
		if err != nil {
			return g, err
		}
		g.replicas = count
		if blind != "" && !split {
			return g, fmt.Errorf("%w: %s, or set segment.Options.AllowSplitBrain to accept the risk", ErrInvalidConfig, blind)
		}
		var replicas int64
		if err := db.QueryRowContext(ctx, `SELECT `+g.replicas).Scan(&replicas); err != nil {
			return g, err
		}
		if replicas > 0 && !split && !sqldialect.SemiSyncAfterSync(ctx, db) {
			return g, fmt.Errorf("%w: %d replicas read this primary's binary log without semi-synchronous replication: a replica promoted while this primary still serves, or a failover to one that missed the last fetches, would hand out segments twice; set rpl_semi_sync_master_enabled = ON and rpl_semi_sync_master_wait_point = AFTER_SYNC (MySQL: rpl_semi_sync_source_*) on the primary and rpl_semi_sync_slave_enabled = ON on every replica, or set segment.Options.AllowSplitBrain to accept the risk", ErrInvalidConfig, replicas)
		}
	}
	return g, nil
}

// ensureTable creates the table with its record row if it is missing, and
// gives a table from before the record row its column and row. Concurrent
// creators race harmlessly: the loser finds the table.
func (a *Allocator) ensureTable(ctx context.Context) error {
	readable := func(cols string) bool {
		rows, err := a.db.QueryContext(ctx, "SELECT "+cols+" FROM "+a.o.Table+" WHERE 1 = 0")
		if err != nil {
			return false
		}
		return rows.Close() == nil
	}
	var err error
	for attempt := range 3 {
		if readable("ident") {
			return nil
		}
		if readable("biz_tag") {
			// A table from before the record row: what it holds now is
			// what was seeded.
			if _, err = a.db.ExecContext(ctx, a.s.addIdent); err == nil || readable("ident") {
				if _, err = a.db.ExecContext(ctx, a.s.legacy); err == nil {
					return nil
				}
			}
		} else if err = a.create(ctx); err == nil {
			return nil
		}
		if ctx.Err() != nil {
			break
		}
		time.Sleep(time.Duration(attempt+1) * 20 * time.Millisecond)
	}
	if readable("ident") {
		return nil
	}
	return fmt.Errorf("segment: create table %s: %w", a.o.Table, err)
}

// create makes the table and its record row in one step: PostgreSQL and
// SQLite in one transaction; MySQL, whose DDL commits at once, fills a
// table of a temporary name and renames it.
func (a *Allocator) create(ctx context.Context) error {
	if a.o.Dialect == dialect.MySQL {
		tmp := "idkit_new_" + rand.Text()[:16]
		if _, err := a.db.ExecContext(ctx, a.s.create(tmp)); err != nil {
			return err
		}
		defer a.db.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+tmp) //nolint:errcheck // gone after the rename
		if _, err := a.db.ExecContext(ctx, a.s.record(tmp)); err != nil {
			return err
		}
		_, err := a.db.ExecContext(ctx, "RENAME TABLE "+tmp+" TO "+a.o.Table)
		return err
	}
	tx, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	if _, err := tx.ExecContext(ctx, a.s.create(a.o.Table)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, a.s.record(a.o.Table)); err != nil {
		return err
	}
	return tx.Commit()
}

// seedTag inserts the tag's row (max_id = Start) if the table never held
// it: under the record row's lock, the table must hold as many tag rows
// as the record row counts seeded.
func (a *Allocator) seedTag(ctx context.Context) error {
	var n int64
	if err := a.db.QueryRowContext(ctx, a.s.has, a.tag).Scan(&n); err != nil {
		return fmt.Errorf("segment: read tag %q: %w", a.tag, err)
	}
	if n > 0 {
		return nil
	}
	tx, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("segment: insert tag %q: %w", a.tag, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	if a.o.Dialect == dialect.SQLite {
		// A write takes SQLite's lock; its count is of the rows matched.
		res, err := tx.ExecContext(ctx, a.s.lock)
		if err != nil {
			return fmt.Errorf("segment: insert tag %q: %w", a.tag, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("segment: insert tag %q: %w", a.tag, err)
		} else if n == 0 {
			return a.recordMissing()
		}
	} else {
		var seeded int64
		if err := tx.QueryRowContext(ctx, a.s.lock).Scan(&seeded); errors.Is(err, sql.ErrNoRows) {
			return a.recordMissing()
		} else if err != nil {
			return fmt.Errorf("segment: insert tag %q: %w", a.tag, err)
		}
	}
	var seeded, rows, has int64
	if err := tx.QueryRowContext(ctx, a.s.counts, a.tag).Scan(&seeded, &rows, &has); err != nil {
		return fmt.Errorf("segment: insert tag %q: %w", a.tag, err)
	}
	switch {
	case has > 0: // another process seeded it meanwhile
		return nil
	case rows < seeded:
		return fmt.Errorf("%w: table %s records %d tag rows seeded and holds %d: the row of tag %q (or another tag's) was deleted, and seeding it again from Start would hand out its IDs twice. To bring tag %q back, INSERT its row with max_id above every ID it handed out; to retire the deleted rows for good, run UPDATE %s SET max_id = %d WHERE biz_tag = ''",
			ErrLost, a.o.Table, seeded, rows, a.tag, a.tag, a.o.Table, rows)
	}
	if _, err := tx.ExecContext(ctx, a.s.seed, a.tag, a.o.Start, a.o.Step); err != nil {
		return fmt.Errorf("segment: insert tag %q: %w", a.tag, err)
	}
	if _, err := tx.ExecContext(ctx, a.s.seeded, rows+1); err != nil {
		return fmt.Errorf("segment: insert tag %q: %w", a.tag, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("segment: insert tag %q: %w", a.tag, err)
	}
	return nil
}

// recordMissing is the error of a table whose record row is gone.
func (a *Allocator) recordMissing() error {
	return fmt.Errorf("%w: table %s lost its record row (biz_tag ''): rows were deleted, and a tag's row seeded again would hand out its IDs twice. Check that every tag's max_id is above every ID it handed out, then run INSERT INTO %s (biz_tag, max_id, step) SELECT '', COUNT(*), 0 FROM %s",
		ErrLost, a.o.Table, a.o.Table, a.o.Table)
}

// lostMarkPrefix begins a loss recorded in the record row's ident.
const lostMarkPrefix = "lost:"

// check completes a fetch that read r for a segment of step IDs: it
// refuses a recorded or detected loss, follows a failover the replicas
// had, records the replicas, and waits for them to acknowledge the fetch.
// seen is the largest max_id this allocator fetched before.
func (a *Allocator) check(ctx context.Context, r taken, step, seen int64) error {
	clear := fmt.Sprintf("after raising every tag's max_id above every ID handed out, run UPDATE %s SET ident = NULL WHERE biz_tag = ''", a.o.Table)
	switch {
	case r.records == 0:
		return a.recordMissing()
	case r.recorded.Valid && (r.recorded.Int64 < 0 || r.recorded.Int64 > 1<<18):
		return fmt.Errorf("%w: table %s: the step of its record row (biz_tag ''), the replicas recorded, holds %d: not a count from 0 to 2^18; set it to the server's replicas", ErrLost, a.o.Table, r.recorded.Int64)
	case r.ident.Valid && strings.HasPrefix(r.ident.String, lostMarkPrefix):
		return fmt.Errorf("%w: table %s records a loss (%s): %s", ErrLost, a.o.Table, r.ident.String, clear)
	case r.max-step < seen:
		mark := fmt.Sprintf("%s tag %q max_id went back from %d to %d", lostMarkPrefix, a.tag, seen, r.max-step)
		return a.lose(ctx, mark, fmt.Sprintf("the max_id of tag %q went back from %d, which this allocator fetched, to %d (the row set back: a restore, or a failover to a replica that missed fetches)", a.tag, seen, r.max-step), clear)
	}
	need := max(r.replicas, r.recorded.Int64)
	switch {
	case !r.ident.Valid: // new, or cleared by the operator
		if _, err := a.db.ExecContext(ctx, a.s.accept, r.now, r.replicas); err != nil {
			return fmt.Errorf("record the server's identity: %w", err)
		}
		need = r.replicas
	case r.ident.String != r.now:
		if r.recorded.Int64 <= 0 {
			mark := fmt.Sprintf("%s server %.40s became %.40s", lostMarkPrefix, r.ident.String, r.now)
			return a.lose(ctx, mark, fmt.Sprintf("the server's identity changed from %q to %q (a failover to an asynchronous replica, or a restore) and no replica acknowledged the writes of the old server", r.ident.String, r.now), clear)
		}
		// A failover: the old server's fetches waited for its replicas,
		// so the one promoted has every segment handed out.
		if _, err := a.db.ExecContext(ctx, a.s.adopt, r.now, r.replicas, r.ident.String); err != nil {
			return fmt.Errorf("record the server's identity: %w", err)
		}
		need = r.replicas
	case r.replicas > r.recorded.Int64:
		if _, err := a.db.ExecContext(ctx, a.s.replicas, r.replicas, r.now, r.replicas); err != nil {
			return fmt.Errorf("record the replicas: %w", err)
		}
	}
	if need == 0 || a.o.AllowSplitBrain {
		return nil
	}
	var err error
	switch a.o.Dialect {
	case dialect.Postgres:
		err = sqldialect.PGAcked(ctx, a.db, need)
	case dialect.MySQL:
		err = sqldialect.SemiSyncAcked(ctx, a.db, need)
	}
	if err != nil && need > r.replicas {
		err = fmt.Errorf("%w (table %s records %d replicas of this server, %d stream now; if a replica was removed for good, run UPDATE %s SET step = %d WHERE biz_tag = '')", err, a.o.Table, need, r.replicas, a.o.Table, r.replicas)
	}
	return err
}

// lose records mark as the table's loss and returns ErrLost.
func (a *Allocator) lose(ctx context.Context, mark, why, clear string) error {
	if len(mark) > 128 {
		mark = strings.ToValidUTF8(mark[:128], "")
	}
	err := fmt.Errorf("%w: table %s: %s; every fetch of the table fails until the operator clears it: %s", ErrLost, a.o.Table, why, clear)
	if _, e := a.db.ExecContext(ctx, a.s.mark, mark); e != nil {
		return fmt.Errorf("%w (recording the loss failed: %v)", err, e)
	}
	return err
}

package segment

import (
	"context"
	"database/sql"
	"errors"

	"github.com/idkit-go/idkit/dialect"
)

// The table keeps, beside a row per tag, a record row whose biz_tag is
// the empty string (never a tag: tags have 1 to 128 bytes): its max_id is
// how many tag rows were seeded, its step the most replicas any fetch saw
// streaming from the server named by its ident column, and ident the
// identity of the server that wrote the table (or a loss mark, "lost:
// ..."). A table with the ident column holds the row from its creation,
// so one without it has lost it. See guard.go.

// stmts are one dialect's statements for one table.
type stmts struct {
	d        dialect.Dialect
	table    string
	create   func(name string) string // CREATE TABLE name (no IF NOT EXISTS)
	record   func(name string) string // insert the record row into a new table
	addIdent string                   // add the ident column to a table from before it
	legacy   string                   // insert the record row into a table from before it, counting its rows
	has      string                   // (tag): 1 if the tag's row exists
	lock     string                   // lock the record row: a read FOR UPDATE, a no-op write on SQLite
	counts   string                   // (tag): seeded count, tag rows, the tag's rows
	seed     string                   // (tag, start, step): insert the tag row
	seeded   string                   // (count): the record row's seeded count
	take     string                   // (step, tag): advance max_id (PostgreSQL: with state's columns)
	state    string                   // (): record rows, ident, replicas recorded, server identity, replicas now
	adopt    string                   // (ident, replicas, old ident): a failover the replicas had
	accept   string                   // (ident, replicas): record the identity where the operator cleared it
	replicas string                   // (replicas, ident, replicas): raise the replicas recorded
	mark     string                   // (mark): record a loss
}

func newStmts(d dialect.Dialect, t, ident, replicas string) stmts {
	s := stmts{d: d, table: t}
	state := `(SELECT COUNT(*) FROM ` + t + ` WHERE biz_tag = ''), (SELECT ident FROM ` + t + ` WHERE biz_tag = ''), (SELECT step FROM ` + t + ` WHERE biz_tag = ''), ` + ident + `, ` + replicas
	s.state = `SELECT ` + state
	q := "?"
	switch d {
	case dialect.Postgres:
		s.create = func(name string) string {
			return `CREATE TABLE ` + name + ` (
	biz_tag VARCHAR(128) PRIMARY KEY,
	max_id BIGINT NOT NULL,
	step INTEGER NOT NULL,
	updated TIMESTAMPTZ NOT NULL DEFAULT now(),
	ident VARCHAR(128))`
		}
		s.addIdent = `ALTER TABLE ` + t + ` ADD COLUMN IF NOT EXISTS ident VARCHAR(128)`
		s.legacy = `INSERT INTO ` + t + ` (biz_tag, max_id, step) SELECT '', COUNT(*), 0 FROM ` + t + ` ON CONFLICT (biz_tag) DO NOTHING`
		s.seed = `INSERT INTO ` + t + ` (biz_tag, max_id, step) VALUES ($1, $2, $3)`
		s.take = `UPDATE ` + t + ` SET max_id = max_id + $1, step = $1, updated = now() WHERE biz_tag = $2 AND max_id >= 0 AND max_id <= 9223372036854775807 - $1 RETURNING max_id, ` + state
		q = "$1"
		s.adopt = `UPDATE ` + t + ` SET ident = $1, step = $2 WHERE biz_tag = '' AND ident = $3`
		s.accept = `UPDATE ` + t + ` SET ident = $1, step = $2 WHERE biz_tag = '' AND ident IS NULL`
		s.replicas = `UPDATE ` + t + ` SET step = $1 WHERE biz_tag = '' AND ident = $2 AND step < $3`
		s.mark = `UPDATE ` + t + ` SET ident = $1 WHERE biz_tag = '' AND (ident IS NULL OR ident NOT LIKE 'lost:%')`
		s.seeded = `UPDATE ` + t + ` SET max_id = $1 WHERE biz_tag = ''`
	case dialect.MySQL:
		s.create = func(name string) string {
			return `CREATE TABLE ` + name + ` (
	biz_tag VARCHAR(128) NOT NULL PRIMARY KEY,
	max_id BIGINT NOT NULL,
	step INT NOT NULL,
	updated DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
	ident VARCHAR(128) NULL) ENGINE=InnoDB`
		}
		s.addIdent = `ALTER TABLE ` + t + ` ADD COLUMN ident VARCHAR(128) NULL`
		s.legacy = `INSERT IGNORE INTO ` + t + ` (biz_tag, max_id, step) SELECT '', COUNT(*), 0 FROM ` + t
		s.seed = `INSERT INTO ` + t + ` (biz_tag, max_id, step) VALUES (?, ?, ?)`
		// LAST_INSERT_ID(expr) makes the new value the statement's insert
		// ID, returned in the same reply: one atomic statement.
		s.take = `UPDATE ` + t + ` SET max_id = LAST_INSERT_ID(max_id + ?), step = ?, updated = CURRENT_TIMESTAMP(6) WHERE biz_tag = ? AND max_id >= 0 AND max_id <= 9223372036854775807 - ?`
	case dialect.SQLite:
		s.create = func(name string) string {
			return `CREATE TABLE ` + name + ` (
	biz_tag TEXT NOT NULL PRIMARY KEY,
	max_id INTEGER NOT NULL,
	step INTEGER NOT NULL,
	updated TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
	ident TEXT)`
		}
		s.addIdent = `ALTER TABLE ` + t + ` ADD COLUMN ident TEXT`
		s.legacy = `INSERT OR IGNORE INTO ` + t + ` (biz_tag, max_id, step) SELECT '', COUNT(*), 0 FROM ` + t
		s.lock = `UPDATE ` + t + ` SET updated = CURRENT_TIMESTAMP WHERE biz_tag = ''`
		s.seed = `INSERT INTO ` + t + ` (biz_tag, max_id, step) VALUES (?, ?, ?)`
		s.take = `UPDATE ` + t + ` SET max_id = max_id + ?1, step = ?1, updated = CURRENT_TIMESTAMP WHERE biz_tag = ?2 AND max_id >= 0 AND max_id <= 9223372036854775807 - ?1 RETURNING max_id`
	}
	// MySQL counts the rows a write changed, not matched: the record row
	// is locked by a read (SQLite's lock is a write, stmts above).
	if d != dialect.SQLite {
		s.lock = `SELECT max_id FROM ` + t + ` WHERE biz_tag = '' FOR UPDATE`
	}
	if d != dialect.Postgres {
		s.adopt = `UPDATE ` + t + ` SET ident = ?, step = ? WHERE biz_tag = '' AND ident = ?`
		s.accept = `UPDATE ` + t + ` SET ident = ?, step = ? WHERE biz_tag = '' AND ident IS NULL`
		s.replicas = `UPDATE ` + t + ` SET step = ? WHERE biz_tag = '' AND ident = ? AND step < ?`
		s.mark = `UPDATE ` + t + ` SET ident = ? WHERE biz_tag = '' AND (ident IS NULL OR ident NOT LIKE 'lost:%')`
		s.seeded = `UPDATE ` + t + ` SET max_id = ? WHERE biz_tag = ''`
	}
	s.has = `SELECT COUNT(*) FROM ` + t + ` WHERE biz_tag = ` + q
	s.counts = `SELECT max_id, (SELECT COUNT(*) FROM ` + t + ` WHERE biz_tag <> ''), (SELECT COUNT(*) FROM ` + t + ` WHERE biz_tag = ` + q + `) FROM ` + t + ` WHERE biz_tag = ''`
	s.record = func(name string) string {
		return `INSERT INTO ` + name + ` (biz_tag, max_id, step, ident) VALUES ('', 0, 0, ` + ident + `)`
	}
	return s
}

// errNoRow reports a tag row that disappeared, or whose max_id is out of
// range (below 0, or so large that the fetch would overflow): the take
// updates no row then.
var errNoRow = errors.New("the tag's row is missing")

// taken is what a fetch read: the new max_id, and the table's and
// server's state (guard.go).
type taken struct {
	max      int64
	records  int64          // record rows: 1, or 0 if it was deleted
	ident    sql.NullString // the identity recorded, a loss mark, or NULL
	recorded sql.NullInt64  // the replicas recorded under ident
	now      string         // the server's identity now
	replicas int64          // replicas streaming now
}

// takeStep advances the tag's max_id by step in one statement and returns
// the new max_id (the segment is (max-step, max]) with the table's state.
func (s stmts) takeStep(ctx context.Context, db *sql.DB, tag string, step int64) (taken, error) {
	var r taken
	state := []any{&r.records, &r.ident, &r.recorded, &r.now, &r.replicas}
	switch s.d {
	case dialect.Postgres:
		if err := db.QueryRowContext(ctx, s.take, step, tag).Scan(append([]any{&r.max}, state...)...); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return r, errNoRow
			}
			return r, err
		}
		return r, nil
	case dialect.MySQL:
		res, err := db.ExecContext(ctx, s.take, step, step, tag, step)
		if err != nil {
			return r, err
		}
		if n, err := res.RowsAffected(); err != nil {
			return r, err
		} else if n == 0 {
			return r, errNoRow
		}
		if r.max, err = res.LastInsertId(); err != nil {
			return r, err
		}
	default:
		if err := db.QueryRowContext(ctx, s.take, step, tag).Scan(&r.max); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return r, errNoRow
			}
			return r, err
		}
	}
	return r, db.QueryRowContext(ctx, s.state).Scan(state...)
}

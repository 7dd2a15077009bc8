package segment

import (
	"context"
	"database/sql"
	"errors"

	"github.com/idkit-go/idkit/dialect"
)

// stmts are one dialect's statements for one table.
type stmts struct {
	d      dialect.Dialect
	create string
	seed   string // (tag, start, step): insert the row if missing
	take   string // (step, tag): advance max_id, giving the new value
}

func newStmts(d dialect.Dialect, t string) stmts {
	s := stmts{d: d}
	switch d {
	case dialect.Postgres:
		s.create = `CREATE TABLE IF NOT EXISTS ` + t + ` (
	biz_tag VARCHAR(128) PRIMARY KEY,
	max_id BIGINT NOT NULL,
	step INTEGER NOT NULL,
	updated TIMESTAMPTZ NOT NULL DEFAULT now())`
		s.seed = `INSERT INTO ` + t + ` (biz_tag, max_id, step) VALUES ($1, $2, $3) ON CONFLICT (biz_tag) DO NOTHING`
		s.take = `UPDATE ` + t + ` SET max_id = max_id + $1, step = $1, updated = now() WHERE biz_tag = $2 RETURNING max_id`
	case dialect.MySQL:
		s.create = `CREATE TABLE IF NOT EXISTS ` + t + ` (
	biz_tag VARCHAR(128) NOT NULL PRIMARY KEY,
	max_id BIGINT NOT NULL,
	step INT NOT NULL,
	updated DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)) ENGINE=InnoDB`
		s.seed = `INSERT IGNORE INTO ` + t + ` (biz_tag, max_id, step) VALUES (?, ?, ?)`
		// LAST_INSERT_ID(expr) makes the new value the statement's insert
		// ID, returned in the same reply: one atomic statement.
		s.take = `UPDATE ` + t + ` SET max_id = LAST_INSERT_ID(max_id + ?), step = ?, updated = CURRENT_TIMESTAMP(6) WHERE biz_tag = ?`
	case dialect.SQLite:
		s.create = `CREATE TABLE IF NOT EXISTS ` + t + ` (
	biz_tag TEXT NOT NULL PRIMARY KEY,
	max_id INTEGER NOT NULL,
	step INTEGER NOT NULL,
	updated TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)`
		s.seed = `INSERT OR IGNORE INTO ` + t + ` (biz_tag, max_id, step) VALUES (?, ?, ?)`
		s.take = `UPDATE ` + t + ` SET max_id = max_id + ?1, step = ?1, updated = CURRENT_TIMESTAMP WHERE biz_tag = ?2 RETURNING max_id`
	}
	return s
}

// errNoRow reports a tag row that disappeared.
var errNoRow = errors.New("segment: tag row missing")

// takeStep advances the tag's max_id by step in one statement and returns
// the new max_id: the segment is (max-step, max].
func (s stmts) takeStep(ctx context.Context, db *sql.DB, tag string, step int64) (int64, error) {
	var max int64
	switch s.d {
	case dialect.MySQL:
		res, err := db.ExecContext(ctx, s.take, step, step, tag)
		if err != nil {
			return 0, err
		}
		if n, err := res.RowsAffected(); err != nil {
			return 0, err
		} else if n == 0 {
			return 0, errNoRow
		}
		if max, err = res.LastInsertId(); err != nil {
			return 0, err
		}
	default:
		if err := db.QueryRowContext(ctx, s.take, step, tag).Scan(&max); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return 0, errNoRow
			}
			return 0, err
		}
	}
	return max, nil
}

package node

import (
	"fmt"
	"time"

	"github.com/idkit-go/idkit/internal/sqlcol"
)

// sqlStmts are the lease statements for one dialect and table. Expiry is
// always computed by the database's clock: timestamptz on PostgreSQL,
// DATETIME(6) in UTC on MySQL, Unix milliseconds on SQLite.
type sqlStmts struct {
	create  string
	gap     string // lowest node in [0, $1] with no row, or NULL
	expired string // lowest expired node <= $1 (locked where supported)
	insert  string // (node, owner, ttl, hwm): 1 row affected or 0 on conflict
	take    string // (owner, ttl, bound, node): only if still expired
	renew   string // (ttl, bound, node, owner)
	release string // (hwm, node, owner)
	raise   string // (hwm, node, owner): release keeping a larger mark
	ttlArg  func(time.Duration) int64
}

func leaseStmts(d sqlcol.Dialect, t string) sqlStmts {
	var s sqlStmts
	switch d {
	case sqlcol.Postgres:
		now, exp := "clock_timestamp()", "clock_timestamp() + $%d::bigint * interval '1 microsecond'"
		gone := "clock_timestamp() - interval '1 second'"
		s.create = `CREATE TABLE IF NOT EXISTS ` + t + ` (
	node BIGINT PRIMARY KEY,
	owner VARCHAR(128) NOT NULL,
	expires_at TIMESTAMPTZ NOT NULL,
	hwm_ns BIGINT NOT NULL DEFAULT 0)`
		s.gap = gapQuery(t, "$1", "")
		s.expired = `SELECT node, hwm_ns FROM ` + t + ` WHERE node <= $1 AND expires_at < ` + now + ` ORDER BY node LIMIT 1 FOR UPDATE SKIP LOCKED`
		s.insert = `INSERT INTO ` + t + ` (node, owner, expires_at, hwm_ns) VALUES ($1, $2, ` + fmt.Sprintf(exp, 3) + `, $4) ON CONFLICT (node) DO NOTHING`
		s.take = `UPDATE ` + t + ` SET owner = $1, expires_at = ` + fmt.Sprintf(exp, 2) + `, hwm_ns = GREATEST(hwm_ns, $3) WHERE node = $4 AND expires_at < ` + now
		s.renew = `UPDATE ` + t + ` SET expires_at = ` + fmt.Sprintf(exp, 1) + `, hwm_ns = GREATEST(hwm_ns, $2) WHERE node = $3 AND owner = $4`
		s.release = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = $1 WHERE node = $2 AND owner = $3`
		s.raise = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = GREATEST(hwm_ns, $1) WHERE node = $2 AND owner = $3`
		s.ttlArg = func(d time.Duration) int64 { return d.Microseconds() }
	case sqlcol.MySQL:
		now, exp := "UTC_TIMESTAMP(6)", "UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND"
		gone := "UTC_TIMESTAMP(6) - INTERVAL 1 SECOND"
		s.create = `CREATE TABLE IF NOT EXISTS ` + t + ` (
	node BIGINT NOT NULL PRIMARY KEY,
	owner VARCHAR(128) NOT NULL,
	expires_at DATETIME(6) NOT NULL,
	hwm_ns BIGINT NOT NULL DEFAULT 0) ENGINE=InnoDB`
		s.gap = gapQuery(t, "?", " FROM DUAL")
		s.expired = `SELECT node, hwm_ns FROM ` + t + ` WHERE node <= ? AND expires_at < ` + now + ` ORDER BY node LIMIT 1 FOR UPDATE SKIP LOCKED`
		s.insert = `INSERT IGNORE INTO ` + t + ` (node, owner, expires_at, hwm_ns) VALUES (?, ?, ` + exp + `, ?)`
		s.take = `UPDATE ` + t + ` SET owner = ?, expires_at = ` + exp + `, hwm_ns = GREATEST(hwm_ns, ?) WHERE node = ? AND expires_at < ` + now
		s.renew = `UPDATE ` + t + ` SET expires_at = ` + exp + `, hwm_ns = GREATEST(hwm_ns, ?) WHERE node = ? AND owner = ?`
		s.release = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = ? WHERE node = ? AND owner = ?`
		s.raise = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = GREATEST(hwm_ns, ?) WHERE node = ? AND owner = ?`
		s.ttlArg = func(d time.Duration) int64 { return d.Microseconds() }
	case sqlcol.SQLite:
		now := "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"
		exp, gone := "("+now+" + ?)", "0"
		s.create = `CREATE TABLE IF NOT EXISTS ` + t + ` (
	node INTEGER NOT NULL PRIMARY KEY,
	owner TEXT NOT NULL,
	expires_at INTEGER NOT NULL,
	hwm_ns INTEGER NOT NULL DEFAULT 0)`
		s.gap = gapQuery(t, "?", "")
		s.expired = `SELECT node, hwm_ns FROM ` + t + ` WHERE node <= ? AND expires_at < ` + now + ` ORDER BY node LIMIT 1`
		s.insert = `INSERT OR IGNORE INTO ` + t + ` (node, owner, expires_at, hwm_ns) VALUES (?, ?, ` + exp + `, ?)`
		s.take = `UPDATE ` + t + ` SET owner = ?, expires_at = ` + exp + `, hwm_ns = MAX(hwm_ns, ?) WHERE node = ? AND expires_at < ` + now
		s.renew = `UPDATE ` + t + ` SET expires_at = ` + exp + `, hwm_ns = MAX(hwm_ns, ?) WHERE node = ? AND owner = ?`
		s.release = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = ? WHERE node = ? AND owner = ?`
		s.raise = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = MAX(hwm_ns, ?) WHERE node = ? AND owner = ?`
		s.ttlArg = func(d time.Duration) int64 { return d.Milliseconds() }
	}
	return s
}

// gapQuery finds the lowest node ID in [0, max] that has no row: 0 if
// free, else the smallest row+1 whose successor is missing.
func gapQuery(t, max, dual string) string {
	return `SELECT MIN(c) FROM (
	SELECT 0 AS c` + dual + ` WHERE NOT EXISTS (SELECT 1 FROM ` + t + ` WHERE node = 0)
	UNION ALL
	SELECT a.node + 1 FROM ` + t + ` a WHERE a.node < ` + max + ` AND NOT EXISTS (SELECT 1 FROM ` + t + ` b WHERE b.node = a.node + 1)
) g`
}

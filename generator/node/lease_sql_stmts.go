package node

import (
	"fmt"
	"strings"
	"time"

	"github.com/idkit-go/idkit/generator/internal/sqldialect"
	"github.com/idkit-go/idkit/sqltypes/dialect"
)

// sqlStmts are the lease statements for one dialect and table. Expiry is
// always computed by the database's clock: timestamptz on PostgreSQL,
// DATETIME(6) in UTC on MySQL, Unix milliseconds on SQLite.
type sqlStmts struct {
	create  string
	count   string             // rows in [0, $1]
	has     string             // rows with node $1: 0 or 1
	seed    func(n int) string // insert free rows for n nodes, keeping existing ones
	claim   string             // PostgreSQL: (lo, hi, owner, prefer, ttl, bound) -> node, old mark, identity (see guard)
	pick    string             // (lo, hi, owner, prefer) -> node, mark, identity; locked where supported
	marker  string             // (identity, mark): record the identity row (see lease_sql_identity.go)
	take    string             // (owner, ttl, bound, node)
	renew   string             // (ttl, bound, node, owner)
	release string             // (hwm, node, owner)
	raise   string             // (hwm, node, owner): release keeping a larger mark
	ttlArg  func(time.Duration) int64
}

// A candidate for a claim: in [lo, hi], and expired, or the preferred node
// held by the claimer itself.
const candidate = `node >= %[1]s AND node <= %[2]s AND (expires_at < %[5]s OR owner = %[3]s AND node = %[4]s)`

func leaseStmts(d dialect.Dialect, t, ident string) sqlStmts {
	var s sqlStmts
	// The identity row's owner and mark, and the server's identity now.
	withIdent := `(SELECT owner FROM ` + t + ` WHERE node = -1), (SELECT hwm_ns FROM ` + t + ` WHERE node = -1), ` + ident
	s.count = `SELECT COUNT(*) FROM ` + t + ` WHERE node >= 0 AND node <= ` + sqldialect.P(d, 1)
	s.has = `SELECT COUNT(*) FROM ` + t + ` WHERE node = ` + sqldialect.P(d, 1)
	switch d {
	case dialect.Postgres:
		now, exp := "clock_timestamp()", "clock_timestamp() + $%d::bigint * interval '1 microsecond'"
		gone := "clock_timestamp() - interval '1 second'"
		s.create = `CREATE TABLE IF NOT EXISTS ` + t + ` (
	node BIGINT PRIMARY KEY,
	owner VARCHAR(128) NOT NULL,
	expires_at TIMESTAMPTZ NOT NULL,
	hwm_ns BIGINT NOT NULL DEFAULT 0)`
		s.seed = seedStmt(d, "INSERT INTO "+t, "to_timestamp(0)", " ON CONFLICT (node) DO NOTHING")
		// One statement: lock the first candidate, skipping rows other
		// claims hold locked, and take it, returning the mark before.
		s.claim = `WITH c AS (SELECT node, hwm_ns FROM ` + t + ` WHERE ` +
			fmt.Sprintf(candidate, "$1", "$2", "$3", "$4", now) + ` ORDER BY node LIMIT 1 FOR UPDATE SKIP LOCKED)
UPDATE ` + t + ` SET owner = $3, expires_at = ` + fmt.Sprintf(exp, 5) + `, hwm_ns = GREATEST(` + t + `.hwm_ns, $6)
FROM c WHERE ` + t + `.node = c.node RETURNING c.node, c.hwm_ns, ` + withIdent
		s.marker = `INSERT INTO ` + t + ` (node, owner, expires_at, hwm_ns) VALUES (-1, $1, to_timestamp(0), $2)
ON CONFLICT (node) DO UPDATE SET owner = EXCLUDED.owner, hwm_ns = GREATEST(` + t + `.hwm_ns, EXCLUDED.hwm_ns)`
		s.renew = `UPDATE ` + t + ` SET expires_at = ` + fmt.Sprintf(exp, 1) + `, hwm_ns = GREATEST(hwm_ns, $2) WHERE node = $3 AND owner = $4`
		s.release = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = $1 WHERE node = $2 AND owner = $3`
		s.raise = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = GREATEST(hwm_ns, $1) WHERE node = $2 AND owner = $3`
		s.ttlArg = func(d time.Duration) int64 { return d.Microseconds() }
	case dialect.MySQL:
		now, exp := "UTC_TIMESTAMP(6)", "UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND"
		gone := "UTC_TIMESTAMP(6) - INTERVAL 1 SECOND"
		s.create = `CREATE TABLE IF NOT EXISTS ` + t + ` (
	node BIGINT NOT NULL PRIMARY KEY,
	owner VARCHAR(128) NOT NULL,
	expires_at DATETIME(6) NOT NULL,
	hwm_ns BIGINT NOT NULL DEFAULT 0) ENGINE=InnoDB`
		s.seed = seedStmt(d, "INSERT IGNORE INTO "+t, "'1970-01-01 00:00:00'", "")
		s.pick = `SELECT node, hwm_ns, ` + withIdent + ` FROM ` + t + ` WHERE ` + fmt.Sprintf(candidate, "?", "?", "?", "?", now) + ` ORDER BY node LIMIT 1 FOR UPDATE SKIP LOCKED`
		s.marker = `INSERT INTO ` + t + ` (node, owner, expires_at, hwm_ns) VALUES (-1, ?, '1970-01-01 00:00:00', ?)
ON DUPLICATE KEY UPDATE owner = VALUES(owner), hwm_ns = GREATEST(hwm_ns, VALUES(hwm_ns))`
		s.take = `UPDATE ` + t + ` SET owner = ?, expires_at = ` + exp + `, hwm_ns = GREATEST(hwm_ns, ?) WHERE node = ?`
		s.renew = `UPDATE ` + t + ` SET expires_at = ` + exp + `, hwm_ns = GREATEST(hwm_ns, ?) WHERE node = ? AND owner = ?`
		s.release = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = ? WHERE node = ? AND owner = ?`
		s.raise = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = GREATEST(hwm_ns, ?) WHERE node = ? AND owner = ?`
		s.ttlArg = func(d time.Duration) int64 { return d.Microseconds() }
	case dialect.SQLite:
		now := "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"
		exp, gone := "("+now+" + ?)", "0"
		s.create = `CREATE TABLE IF NOT EXISTS ` + t + ` (
	node INTEGER NOT NULL PRIMARY KEY,
	owner TEXT NOT NULL,
	expires_at INTEGER NOT NULL,
	hwm_ns INTEGER NOT NULL DEFAULT 0)`
		s.seed = seedStmt(d, "INSERT OR IGNORE INTO "+t, "0", "")
		s.pick = `SELECT node, hwm_ns, NULL, NULL, '' FROM ` + t + ` WHERE ` + fmt.Sprintf(candidate, "?", "?", "?", "?", now) + ` ORDER BY node LIMIT 1`
		s.take = `UPDATE ` + t + ` SET owner = ?, expires_at = ` + exp + `, hwm_ns = MAX(hwm_ns, ?) WHERE node = ?`
		s.renew = `UPDATE ` + t + ` SET expires_at = ` + exp + `, hwm_ns = MAX(hwm_ns, ?) WHERE node = ? AND owner = ?`
		s.release = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = ? WHERE node = ? AND owner = ?`
		s.raise = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = MAX(hwm_ns, ?) WHERE node = ? AND owner = ?`
		s.ttlArg = func(d time.Duration) int64 { return d.Milliseconds() }
	}
	return s
}

// seedStmt returns a function building the statement that inserts n free
// rows (no owner, long expired, mark 0), nodes given as parameters, while
// leaving existing rows alone.
func seedStmt(d dialect.Dialect, insert, past, onConflict string) func(int) string {
	return func(n int) string {
		var b strings.Builder
		b.WriteString(insert + " (node, owner, expires_at, hwm_ns) VALUES ")
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "(%s, '', %s, 0)", sqldialect.P(d, i+1), past)
		}
		b.WriteString(onConflict)
		return b.String()
	}
}

package sqllease

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/idkit-go/idkit/dialect"
	"github.com/idkit-go/idkit/generator/internal/sqldialect"
)

// sqlStmts are the lease statements for one dialect and table. Expiry is
// always computed by the database's clock: timestamptz on PostgreSQL,
// DATETIME(6) in UTC on MySQL, Unix milliseconds on SQLite. Every write of
// a node's row raises its version; the identity row (node -1, see
// identity.go) keeps the server's identity as owner, the
// store-wide mark as hwm_ns and the horizon (ns) as version.
type sqlStmts struct {
	create    func(table string) string // CREATE TABLE table, without IF NOT EXISTS
	addVer    string                    // add the version column to a table from before it
	ident     string                    // format of table: insert the identity row, at creation
	count     string                    // rows in [0, $1]
	has       string                    // rows with node $1: 0 or 1
	seed      func(n int) string        // insert free rows for n nodes, keeping existing ones
	lockIdent string                    // lock the identity row unless another holds it, to add rows or raise the horizon (not SQLite: BEGIN IMMEDIATE)
	ident1    string                    // (): the identity rows, 0 or 1, read without a lock
	stored    string                    // (): the stored horizon, read without a lock
	claim     string                    // PostgreSQL: (lo, hi, owner, prefer, ttl, bound) -> node, old mark, old version, far expiry, old owner, identity (see guard)
	pick      string                    // (lo, hi, owner, prefer) -> node, mark, version, far expiry, owner, identity; locked where supported
	current   string                    // () -> identity, as the claims read it
	marker    string                    // (identity, mark, horizon): record a loss (see identity.go)
	horizon   string                    // (horizon, horizon): raise the stored horizon
	take      string                    // (owner, ttl, mark, version, node)
	proven    string                    // (ttl, bound, node, owner, version, identity, horizon): renew if continuity is proven, raising the horizon; -> version (PostgreSQL: and the replicas streaming; MySQL and SQLite: without the horizon, raised apart)
	streams   string                    // -> the replicas streaming now
	record    string                    // (identity, replicas): record the replicas seen under identity (node -2)
	probe     string                    // (node): owner, version, expired, identity row owner, identity now, mark, clock (ns), far expiry
	exists    string                    // (): 1 if the table exists, 0 if not
	release   string                    // (hwm, node, owner)
	raise     string                    // (hwm, node, owner): release keeping a larger mark
	ttlArg    func(time.Duration) int64
}

// A candidate for a claim: in [lo, hi], and expired, or with an expiry
// further than maxHorizon ahead (corrupt, bounds.go), or the preferred node
// held by the claimer itself.
const candidate = `node >= %[1]s AND node <= %[2]s AND (expires_at < %[5]s OR expires_at > %[6]s OR owner = %[3]s AND node = %[4]s)`

func leaseStmts(d dialect.Dialect, t string, g *sqlGuard) sqlStmts {
	var s sqlStmts
	ident := g.ident
	var nowNS string    // the database's clock, Unix ns
	var replicas string // the replicas streaming from the server now
	var far string      // maxHorizon after the database's clock, as expires_at (bounds.go)
	s.count = `SELECT COUNT(*) FROM ` + t + ` WHERE node >= 0 AND node <= ` + sqldialect.P(d, 1)
	s.has = `SELECT COUNT(*) FROM ` + t + ` WHERE node = ` + sqldialect.P(d, 1)
	s.ident1 = `SELECT COUNT(*) FROM ` + t + ` WHERE node = -1`
	s.stored = `SELECT version FROM ` + t + ` WHERE node = -1`
	s.lockIdent = `SELECT node FROM ` + t + ` WHERE node = -1 FOR UPDATE SKIP LOCKED`
	// The identity row's owner, mark and horizon, the server's identity
	// and clock now, the replicas streaming now and the most recorded
	// under this identity (replicas.go).
	withIdent := func() string {
		return `(SELECT owner FROM ` + t + ` WHERE node = -1), (SELECT hwm_ns FROM ` + t + ` WHERE node = -1), (SELECT version FROM ` + t + ` WHERE node = -1), ` + ident + `, ` + nowNS +
			`, ` + replicas + `, (SELECT version FROM ` + t + ` WHERE node = -2 AND owner = ` + ident + `)`
	}
	// The node's mark and version (of row r., or of the table's row)
	// within their bounds (bounds.go).
	inBounds := func(r string) string {
		return r + `version >= 0 AND ` + r + `version < ` + maxVersionSQL + ` AND ` + r + `hwm_ns >= 0 AND ` + r + `hwm_ns <= ` + nowNS + ` + ` + maxHorizonNS
	}
	// The renewal's proof: the server and the identity row name the
	// identity the lease saw, the row is the owner's and not expired, its
	// version is not below the one the lease saw, and its mark, version
	// and expiry are within their bounds.
	proof := func(owner, id, ver, now string) string {
		return `owner = ` + owner + ` AND expires_at >= ` + now + ` AND expires_at <= ` + far + ` AND version >= ` + ver + ` AND ` + inBounds("") + ` AND ` + ident + ` = ` + id
	}
	// The version a write raises, kept if corrupt (the next claim
	// starts it again).
	bump := `version = CASE WHEN version >= 0 AND version < ` + maxVersionSQL + ` THEN version + 1 ELSE version END`
	switch d {
	case dialect.Postgres:
		now, exp := "clock_timestamp()", "clock_timestamp() + $%d::bigint * interval '1 microsecond'"
		far = "clock_timestamp() + interval '" + strconv.FormatInt(int64(maxHorizon/time.Second), 10) + " seconds'"
		nowNS = "(extract(epoch from clock_timestamp()) * 1000000)::bigint * 1000"
		replicas = cmp.Or(g.replicas, sqldialect.PGReplicas)
		gone := "clock_timestamp() - interval '1 second'"
		s.create = func(name string) string {
			return `CREATE TABLE ` + name + ` (
	node BIGINT PRIMARY KEY,
	owner VARCHAR(128) NOT NULL,
	expires_at TIMESTAMPTZ NOT NULL,
	hwm_ns BIGINT NOT NULL DEFAULT 0,
	version BIGINT NOT NULL DEFAULT 0)`
		}
		s.addVer = `ALTER TABLE ` + t + ` ADD COLUMN IF NOT EXISTS version BIGINT NOT NULL DEFAULT 0`
		s.ident = `INSERT INTO %s (node, owner, expires_at, hwm_ns, version) VALUES (-1, ` + ident + `, to_timestamp(0), 0, 0)`
		s.seed = seedStmt(d, "INSERT INTO "+t, "to_timestamp(0)", " ON CONFLICT (node) DO NOTHING")
		// One statement: lock the first candidate, skipping rows other
		// claims hold locked, and take it, returning the mark before.
		// Unless a store-wide field is out of bounds (bounds.go): then no
		// row, and the claim reads the identity to say which.
		sane := `NOT EXISTS (SELECT 1 FROM ` + t + ` i WHERE i.node = -1 AND (i.hwm_ns < 0 OR i.hwm_ns > ` + nowNS + ` + ` + maxHorizonNS + ` OR i.version < 0 OR i.version > ` + maxHorizonNS + `))
	AND NOT EXISTS (SELECT 1 FROM ` + t + ` i WHERE i.node = -2 AND i.owner = ` + ident + ` AND (i.version < 0 OR i.version > ` + maxReplSQL + `))`
		s.claim = `WITH c AS (SELECT node, hwm_ns, version, expires_at > ` + far + ` AS far, owner FROM ` + t + ` WHERE ` +
			fmt.Sprintf(candidate, "$1", "$2", "$3", "$4", now, far) + ` AND ` + sane + ` ORDER BY node LIMIT 1 FOR UPDATE SKIP LOCKED)
UPDATE ` + t + ` SET owner = $3, expires_at = ` + fmt.Sprintf(exp, 5) + `,
	hwm_ns = CASE WHEN c.hwm_ns < 0 OR c.hwm_ns > ` + nowNS + ` + ` + maxHorizonNS + ` THEN $6 ELSE GREATEST(` + t + `.hwm_ns, $6) END,
	version = CASE WHEN c.version < 0 OR c.version >= ` + maxVersionSQL + ` THEN 1 ELSE c.version + 1 END
FROM c WHERE ` + t + `.node = c.node RETURNING c.node, c.hwm_ns, c.version, c.far, c.owner, ` + withIdent()
		s.marker = `INSERT INTO ` + t + ` (node, owner, expires_at, hwm_ns, version) VALUES (-1, $1, to_timestamp(0), $2, $3)
ON CONFLICT (node) DO UPDATE SET owner = EXCLUDED.owner, hwm_ns = GREATEST(` + t + `.hwm_ns, EXCLUDED.hwm_ns), version = GREATEST(` + t + `.version, EXCLUDED.version)`
		s.horizon = `UPDATE ` + t + ` SET version = $1 WHERE node = -1 AND version < $2`
		s.proven = `WITH r AS (UPDATE ` + t + ` SET expires_at = ` + fmt.Sprintf(exp, 1) + `, hwm_ns = GREATEST(hwm_ns, $2), version = version + 1
WHERE node = $3 AND ` + proof("$4", "$6", "$5", now) + ` AND (SELECT owner FROM ` + t + ` WHERE node = -1) = $6 RETURNING version),
h AS (UPDATE ` + t + ` SET version = $7 WHERE node = -1 AND version < $7 AND EXISTS (SELECT 1 FROM r))
SELECT version, ` + replicas + ` FROM r`
		s.record = `INSERT INTO ` + t + ` (node, owner, expires_at, hwm_ns, version) VALUES (-2, $1, to_timestamp(0), 0, $2)
ON CONFLICT (node) DO UPDATE SET owner = EXCLUDED.owner,
	version = CASE WHEN ` + t + `.owner = EXCLUDED.owner THEN GREATEST(` + t + `.version, EXCLUDED.version) ELSE EXCLUDED.version END`
		s.probe = `SELECT (SELECT owner FROM ` + t + ` WHERE node = $1), (SELECT version FROM ` + t + ` WHERE node = $1), (SELECT expires_at < ` + now + ` FROM ` + t + ` WHERE node = $1), (SELECT owner FROM ` + t + ` WHERE node = -1), ` + ident +
			`, (SELECT hwm_ns FROM ` + t + ` WHERE node = $1), ` + nowNS + `, (SELECT expires_at > ` + far + ` FROM ` + t + ` WHERE node = $1)`
		s.release = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = $1, ` + bump + ` WHERE node = $2 AND owner = $3`
		s.raise = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = GREATEST(hwm_ns, $1), ` + bump + ` WHERE node = $2 AND owner = $3`
		s.exists = `SELECT CASE WHEN to_regclass('` + t + `') IS NULL THEN 0 ELSE 1 END`
		s.ttlArg = func(d time.Duration) int64 { return d.Microseconds() }
	case dialect.MySQL:
		now, exp := "UTC_TIMESTAMP(6)", "UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND"
		far = "UTC_TIMESTAMP(6) + INTERVAL " + strconv.FormatInt(int64(maxHorizon/time.Second), 10) + " SECOND"
		nowNS = "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) * 1000"
		replicas = cmp.Or(g.replicas, sqldialect.MySQLReplicas)
		gone := "UTC_TIMESTAMP(6) - INTERVAL 1 SECOND"
		s.create = func(name string) string {
			return `CREATE TABLE ` + name + ` (
	node BIGINT NOT NULL PRIMARY KEY,
	owner VARCHAR(128) NOT NULL,
	expires_at DATETIME(6) NOT NULL,
	hwm_ns BIGINT NOT NULL DEFAULT 0,
	version BIGINT NOT NULL DEFAULT 0) ENGINE=InnoDB`
		}
		s.addVer = `ALTER TABLE ` + t + ` ADD COLUMN version BIGINT NOT NULL DEFAULT 0`
		s.ident = `INSERT INTO %s (node, owner, expires_at, hwm_ns, version) VALUES (-1, ` + ident + `, '1970-01-01 00:00:00', 0, 0)`
		s.seed = seedStmt(d, "INSERT IGNORE INTO "+t, "'1970-01-01 00:00:00'", "")
		s.pick = `SELECT node, hwm_ns, version, expires_at > ` + far + `, owner, ` + withIdent() + ` FROM ` + t + ` WHERE ` + fmt.Sprintf(candidate, "?", "?", "?", "?", now, far) + ` ORDER BY node LIMIT 1 FOR UPDATE SKIP LOCKED`
		s.marker = `INSERT INTO ` + t + ` (node, owner, expires_at, hwm_ns, version) VALUES (-1, ?, '1970-01-01 00:00:00', ?, ?)
ON DUPLICATE KEY UPDATE owner = VALUES(owner), hwm_ns = GREATEST(hwm_ns, VALUES(hwm_ns)), version = GREATEST(version, VALUES(version))`
		s.horizon = `UPDATE ` + t + ` SET version = ? WHERE node = -1 AND version < ?`
		s.take = `UPDATE ` + t + ` SET owner = ?, expires_at = ` + exp + `, hwm_ns = ?, version = ? WHERE node = ?`
		// MySQL cannot read the updated table in a subquery: the identity
		// row joins, read only, so that renewals share its lock (writing it
		// too made every renewal of the table wait for the one before,
		// through its commit and semi-synchronous acknowledgement); the
		// horizon is raised apart, when it must rise (Renew).
		// LAST_INSERT_ID(expr) returns the new version.
		s.proven = `UPDATE ` + t + ` r JOIN ` + t + ` i ON i.node = -1 SET r.expires_at = ` + exp + `, r.hwm_ns = GREATEST(r.hwm_ns, ?), r.version = LAST_INSERT_ID(r.version + 1)
WHERE r.node = ? AND r.owner = ? AND r.expires_at >= ` + now + ` AND r.expires_at <= ` + far + ` AND r.version >= ? AND ` + inBounds("r.") + ` AND ` + ident + ` = ? AND i.owner = ` + ident + ``
		// The version first: MySQL assigns left to right.
		s.record = `INSERT INTO ` + t + ` (node, owner, expires_at, hwm_ns, version) VALUES (-2, ?, '1970-01-01 00:00:00', 0, ?)
ON DUPLICATE KEY UPDATE version = IF(owner = VALUES(owner), GREATEST(version, VALUES(version)), VALUES(version)), owner = VALUES(owner)`
		s.probe = `SELECT (SELECT owner FROM ` + t + ` WHERE node = ?), (SELECT version FROM ` + t + ` WHERE node = ?), (SELECT expires_at < ` + now + ` FROM ` + t + ` WHERE node = ?), (SELECT owner FROM ` + t + ` WHERE node = -1), ` + ident +
			`, (SELECT hwm_ns FROM ` + t + ` WHERE node = ?), ` + nowNS + `, (SELECT expires_at > ` + far + ` FROM ` + t + ` WHERE node = ?)`
		s.release = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = ?, ` + bump + ` WHERE node = ? AND owner = ?`
		s.raise = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = GREATEST(hwm_ns, ?), ` + bump + ` WHERE node = ? AND owner = ?`
		s.exists = `SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '` + t + `'`
		s.ttlArg = func(d time.Duration) int64 { return d.Microseconds() }
	case dialect.SQLite:
		now := "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"
		nowNS = "(" + now + " * 1000000)"
		replicas = "0"
		exp, gone := "("+now+" + ?)", "0"
		far = "(" + now + " + " + strconv.FormatInt(maxHorizon.Milliseconds(), 10) + ")"
		s.create = func(name string) string {
			return `CREATE TABLE ` + name + ` (
	node INTEGER NOT NULL PRIMARY KEY,
	owner TEXT NOT NULL,
	expires_at INTEGER NOT NULL,
	hwm_ns INTEGER NOT NULL DEFAULT 0,
	version INTEGER NOT NULL DEFAULT 0)`
		}
		s.addVer = `ALTER TABLE ` + t + ` ADD COLUMN version INTEGER NOT NULL DEFAULT 0`
		s.ident = `INSERT INTO %s (node, owner, expires_at, hwm_ns, version) VALUES (-1, ` + ident + `, 0, 0, 0)`
		s.seed = seedStmt(d, "INSERT OR IGNORE INTO "+t, "0", "")
		s.pick = `SELECT node, hwm_ns, version, expires_at > ` + far + `, owner, ` + withIdent() + ` FROM ` + t + ` WHERE ` + fmt.Sprintf(candidate, "?", "?", "?", "?", now, far) + ` ORDER BY node LIMIT 1`
		s.marker = `INSERT INTO ` + t + ` (node, owner, expires_at, hwm_ns, version) VALUES (-1, ?, 0, ?, ?)
ON CONFLICT (node) DO UPDATE SET owner = excluded.owner, hwm_ns = MAX(hwm_ns, excluded.hwm_ns), version = MAX(version, excluded.version)`
		s.horizon = `UPDATE ` + t + ` SET version = ? WHERE node = -1 AND version < ?`
		s.take = `UPDATE ` + t + ` SET owner = ?, expires_at = ` + exp + `, hwm_ns = ?, version = ? WHERE node = ?`
		s.proven = `UPDATE ` + t + ` SET expires_at = ` + exp + `, hwm_ns = MAX(hwm_ns, ?), version = version + 1
WHERE node = ? AND ` + proof("?", "?", "?", now) + ` AND (SELECT owner FROM ` + t + ` WHERE node = -1) = ` + ident + ` RETURNING version`
		s.record = `INSERT INTO ` + t + ` (node, owner, expires_at, hwm_ns, version) VALUES (-2, ?, 0, 0, ?)
ON CONFLICT (node) DO UPDATE SET owner = excluded.owner, version = CASE WHEN owner = excluded.owner THEN MAX(version, excluded.version) ELSE excluded.version END`
		s.probe = `SELECT (SELECT owner FROM ` + t + ` WHERE node = ?), (SELECT version FROM ` + t + ` WHERE node = ?), (SELECT expires_at < ` + now + ` FROM ` + t + ` WHERE node = ?), (SELECT owner FROM ` + t + ` WHERE node = -1), ` + ident +
			`, (SELECT hwm_ns FROM ` + t + ` WHERE node = ?), ` + nowNS + `, (SELECT expires_at > ` + far + ` FROM ` + t + ` WHERE node = ?)`
		s.release = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = ?, ` + bump + ` WHERE node = ? AND owner = ?`
		s.raise = `UPDATE ` + t + ` SET owner = '', expires_at = ` + gone + `, hwm_ns = MAX(hwm_ns, ?), ` + bump + ` WHERE node = ? AND owner = ?`
		s.exists = `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '` + t + `'`
		s.ttlArg = func(d time.Duration) int64 { return d.Milliseconds() }
	}
	s.streams = `SELECT ` + replicas
	s.current = `SELECT ` + withIdent()
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

package node

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idkit-go/idkit/generator/node/internal/failover"
	"github.com/idkit-go/idkit/sqltypes/dialect"
)

// Failover detection on SQL (see docs/leases.md). The lease table keeps an
// identity row, node -1 (never claimed: claims look at nodes from 0): its
// owner is the identity of the server that wrote it, and its mark the floor
// that claims after the last detected failover start from. Every claim
// reads both and the server's identity now in its own statement (no extra
// round trip). PostgreSQL's identity is the system identifier and the
// timeline (which a promotion or a point-in-time restore changes);
// MySQL's is @@server_id and @@server_uuid, MariaDB's @@server_id (unique
// per server of a replication topology). A claim that finds it changed
// assumes that holders the server forgot may still issue IDs, raises its
// floor to its Mark and records the new identity with that mark, which
// later claims then also start from. A missing identity row is a new table
// (or one from before this row existed): it is written, without a wait.

// identity is what a claim read: the identity row's owner and mark, and the
// server's identity now.
type identity struct {
	stored sql.NullString
	mark   sql.NullInt64
	now    string
}

// sqlGuard is what a process learned when it first opened a table: the SQL
// expression of the server's identity ("”" if it cannot be read) and the
// warnings to log once.
type sqlGuard struct {
	ident  string
	warns  []string
	warned atomic.Bool
	mu     sync.Mutex             // held by the claim of the process writing the identity row
	known  atomic.Pointer[string] // the identity this process last recorded
}

// warn logs the guard's warnings once, on the first claim with a logger.
func (g *sqlGuard) warn(log *slog.Logger) {
	if len(g.warns) == 0 || log == nil || g.warned.Load() || g.warned.Swap(true) {
		return
	}
	for _, w := range g.warns {
		log.Warn(w)
	}
}

// guard returns the floor of a claim that read floor and id, recording a
// changed identity.
func (b *sqlBackend) guard(ctx context.Context, c failover.Claim, floor int64, id identity) int64 {
	floor = max(floor, id.mark.Int64)
	if id.now == "" || id.stored.Valid && id.stored.String == id.now {
		return floor
	}
	mark := id.mark.Int64
	if id.stored.Valid && !failover.Off.Load() {
		mark = max(mark, time.Now().Add(c.Horizon).UnixNano())
		floor = max(floor, mark)
		if c.Log != nil {
			c.Log.Warn("lease store forgot writes (failover or restore): waiting out earlier holders",
				"was", id.stored.String, "now", id.now, "floor", time.Unix(0, mark))
		}
	}
	// Other claims of this process that read the old identity keep their
	// own marks; the row needs writing once (a new table's first claims all
	// find it missing), and the claims do not wait for it. A failed write
	// leaves the old identity, so later claims detect the change
	// themselves.
	g := b.t.guard
	if !g.mu.TryLock() {
		return floor // another claim of this process is writing it
	}
	defer g.mu.Unlock()
	if k := g.known.Load(); k == nil || *k != id.now {
		if _, err := b.db.ExecContext(ctx, b.s.marker, id.now, mark); err == nil {
			g.known.Store(&id.now)
		}
	}
	return floor
}

// probeGuard reads, once per table and process, whether the server's
// identity can be read, and what makes its leases unsafe across a failover
// or crash, as warnings.
func probeGuard(ctx context.Context, db *sql.DB, d dialect.Dialect) *sqlGuard {
	g := &sqlGuard{ident: "''"}
	switch d {
	case dialect.Postgres:
		const ident = `((SELECT system_identifier::text FROM pg_control_system()) || '/' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))`
		var id, commit string
		var replicas, sync int
		err := db.QueryRowContext(ctx, `SELECT `+ident+`, current_setting('synchronous_commit'),
	(SELECT count(*) FROM pg_stat_replication), (SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum'))`).
			Scan(&id, &commit, &replicas, &sync)
		if err != nil {
			g.warns = append(g.warns, fmt.Sprintf("lease store cannot read the server's identity (%v): a failover to an asynchronous replica goes unnoticed and may repeat IDs; grant EXECUTE on pg_control_system() and pg_current_wal_lsn(), or replicate synchronously", err))
			return g
		}
		g.ident = ident
		if commit == "off" {
			g.warns = append(g.warns, "lease store on PostgreSQL with synchronous_commit = off: a crash may forget lease writes unnoticed and repeat IDs; set synchronous_commit = on")
		}
		if replicas > sync && sync == 0 {
			g.warns = append(g.warns, fmt.Sprintf("lease store on a primary with %d asynchronous replicas and no synchronous standby: a failover may forget leases; claims after one wait TTL + BorrowAhead + MaxClockOffset; synchronous_standby_names avoids the loss", replicas))
		}
	case dialect.MySQL:
		var version string
		var flush int
		if err := db.QueryRowContext(ctx, `SELECT VERSION(), @@innodb_flush_log_at_trx_commit`).Scan(&version, &flush); err != nil {
			g.warns = append(g.warns, fmt.Sprintf("lease store cannot read the server's identity (%v): a failover to an asynchronous replica goes unnoticed and may repeat IDs", err))
			return g
		}
		mariadb := strings.Contains(strings.ToLower(version), "mariadb")
		g.ident = "CONCAT(@@server_id, '/', @@server_uuid)"
		if mariadb {
			g.ident = "CONCAT(@@server_id)"
		}
		if flush != 1 {
			g.warns = append(g.warns, fmt.Sprintf("lease store on a server with innodb_flush_log_at_trx_commit = %d: a crash may forget lease writes unnoticed and repeat IDs; set it to 1", flush))
		}
		var replicas int
		_ = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'`).Scan(&replicas)
		if replicas > 0 && !semiSyncAfterSync(ctx, db) {
			g.warns = append(g.warns, fmt.Sprintf("lease store on a primary with %d asynchronous replicas (no semi-synchronous replication waiting AFTER_SYNC): a failover may forget leases; claims after one wait TTL + BorrowAhead + MaxClockOffset; rpl_semi_sync_master_enabled with rpl_semi_sync_master_wait_point = AFTER_SYNC avoids the loss", replicas))
		}
	}
	return g
}

// semiSyncAfterSync reports whether the MySQL or MariaDB primary waits for
// a replica's acknowledgement before committing (AFTER_SYNC).
func semiSyncAfterSync(ctx context.Context, db *sql.DB) bool {
	for _, q := range []string{
		`SELECT @@rpl_semi_sync_master_enabled, @@rpl_semi_sync_master_wait_point`,
		`SELECT @@rpl_semi_sync_source_enabled, @@rpl_semi_sync_source_wait_point`,
	} {
		var on int
		var point string
		if err := db.QueryRowContext(ctx, q).Scan(&on, &point); err == nil {
			return on == 1 && strings.EqualFold(point, "AFTER_SYNC")
		}
	}
	return false
}

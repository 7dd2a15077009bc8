package sqllease

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/idkit-go/idkit/dialect"
)

// Split brain on SQL (see docs/leases.md, "Split brain"). A replica
// promoted while the old primary still serves its holders would let both
// sides issue on one node: the old primary's renewals succeed. So a lease
// on a primary with replicas trusts a claim or renewal only once every
// replica streaming when the lease claimed has the write: PostgreSQL's
// walsenders report each replica's flush_lsn in pg_stat_replication (the
// store waits until as many have flushed the primary's WAL past the
// write); MySQL and MariaDB report no per-replica position to a client, so
// the store demands semi-synchronous replication and checks after each
// write that it is still in force (Rpl_semi_sync_master_status ON, with as
// many semi-synchronous replicas connected), as it falls back to
// asynchronous after rpl_semi_sync_master_timeout. A replica that left the
// primary fails every renewal of the leases that saw it, without a heal:
// their generators stay fenced.
//
// A later lease (a new process) never saw the replicas that left, and the
// horizon raised by a claim must survive a failover too, or a later
// claimer waits a shorter one: so the table records, in row -2 (owner: the
// server's identity, version: a count), the most replicas any claim saw
// streaming from the server, and every claim waits for that many, even
// one that sees fewer streaming (a replica that left may have been
// promoted). A promoted replica has an identity of its own, and so a
// record of its own.

// pgStreaming selects, in pg_stat_replication, the physical replicas that
// stream: those a failover could promote. A logical replication or change
// capture client (a walsender holding a logical slot) is not one, and
// reports its flush position when it pleases.
const pgStreaming = `state = 'streaming' AND NOT EXISTS (SELECT 1 FROM pg_replication_slots s
	WHERE s.active_pid = pg_stat_replication.pid AND s.slot_type = 'logical')`

// errNotAcked is wrapped by the error of a claim or renewal that the
// replicas did not acknowledge; a claim is not retried.
var errNotAcked = errors.New("write not acknowledged by the replicas")

// seenIdent is the Seen.Ident of a lease that saw the server identity
// ident with replicas streaming: the identity, with "+n" if n > 0.
func seenIdent(ident string, replicas int64) string {
	if replicas <= 0 {
		return ident
	}
	return ident + "+" + strconv.FormatInt(replicas, 10)
}

// splitSeen reverses seenIdent.
func splitSeen(seen string) (ident string, replicas int64) {
	i := strings.LastIndexByte(seen, '+')
	if i < 0 {
		return seen, 0
	}
	n, err := strconv.ParseInt(seen[i+1:], 10, 64)
	if err != nil {
		return seen, 0
	}
	return seen[:i], n
}

// refuse returns why a store without AllowSplitBrain cannot open this
// table's server, or nil.
func (g *sqlGuard) refuse(split bool) error {
	if split || g.unsafe == "" {
		return nil
	}
	return errors.New(g.unsafe + ", or set sqllease.StoreOptions.AllowSplitBrain to accept the risk (docs/leases.md, \"Split brain\")")
}

// need is how many replicas must acknowledge a claim that read id: those
// streaming now, and at least the most recorded under the server's
// identity, so that a process that first claims on a primary its replicas
// left (a replica promoted elsewhere) is refused like the holders that saw
// them. Zero with AllowSplitBrain.
func (b *store) need(id identity) int64 {
	if b.split {
		return 0
	}
	return max(id.replicas, id.recorded.Int64)
}

// replicated completes a claim that read id: it records the replicas
// streaming now under the server's identity if more than recorded, and
// waits for need of them to acknowledge the claim's writes.
func (b *store) replicated(ctx context.Context, q querier, ttl time.Duration, id identity, need int64) error {
	if id.replicas > 0 && id.replicas > id.recorded.Int64 && b.t.guard.ident != "''" {
		if err := b.exec(ctx, q, b.s.record, id.now, id.replicas); err != nil {
			return fmt.Errorf("record the replicas: %w", err)
		}
	}
	if need == 0 {
		return nil
	}
	if err := b.acked(ctx, need, ttl); err != nil {
		if need > id.replicas {
			return fmt.Errorf("%w (the lease table records %d replicas of this server, %d streamed at the claim; if a replica was removed for good, DELETE the table's row of node -2)", err, need, id.replicas)
		}
		return err
	}
	return nil
}

// acked waits until need replicas have every write this process's
// connections committed so far, for at most ttl/2 or until ctx ends.
func (b *store) acked(ctx context.Context, need int64, ttl time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, max(ttl/2, 10*time.Millisecond))
	defer cancel()
	switch b.d {
	case dialect.Postgres:
		return b.pgAcked(ctx, need)
	case dialect.MySQL:
		return b.semiSyncAcked(ctx, need)
	}
	return nil
}

// pgAcked polls pg_stat_replication until need streaming replicas have
// flushed the WAL up to the insert position read after the write.
func (b *store) pgAcked(ctx context.Context, need int64) error {
	var lsn string
	var streaming, flushed, hidden int64
	err := b.db.QueryRowContext(ctx, `SELECT pg_current_wal_insert_lsn()::text, count(*) FILTER (WHERE `+pgStreaming+`),
	count(*) FILTER (WHERE `+pgStreaming+` AND flush_lsn >= pg_current_wal_insert_lsn()),
	count(*) FILTER (WHERE `+pgStreaming+` AND flush_lsn IS NULL) FROM pg_stat_replication`).Scan(&lsn, &streaming, &flushed, &hidden)
	for pause := 500 * time.Microsecond; err == nil; pause = min(2*pause, 10*time.Millisecond) {
		switch {
		case flushed >= need:
			return nil
		case streaming < need:
			return fmt.Errorf("%w: %d replicas stream from the primary, %d must acknowledge: one left it (a replica promoted while this primary still serves?)", errNotAcked, streaming, need)
		}
		select {
		case <-ctx.Done():
			if hidden > 0 {
				return fmt.Errorf("%w: pg_stat_replication hides the replicas' flush_lsn from this role: grant it pg_monitor (or pg_read_all_stats)", errNotAcked)
			}
			return fmt.Errorf("%w: %d of %d replicas flushed %s in time", errNotAcked, flushed, need, lsn)
		case <-time.After(pause):
		}
		err = b.db.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE `+pgStreaming+`),
	count(*) FILTER (WHERE `+pgStreaming+` AND flush_lsn >= $1::pg_lsn),
	count(*) FILTER (WHERE `+pgStreaming+` AND flush_lsn IS NULL) FROM pg_stat_replication`, lsn).Scan(&streaming, &flushed, &hidden)
	}
	return fmt.Errorf("%w: %w", errNotAcked, err)
}

// semiSyncAcked checks, after a write, that semi-synchronous replication
// is in force with at least need replicas: the write then waited for one
// to acknowledge it (or, had it timed out and switched semi-synchronous
// replication off, a replica has since caught up past it).
func (b *store) semiSyncAcked(ctx context.Context, need int64) error {
	rows, err := b.db.QueryContext(ctx, `SHOW GLOBAL STATUS WHERE Variable_name IN
	('Rpl_semi_sync_master_status', 'Rpl_semi_sync_master_clients', 'Rpl_semi_sync_source_status', 'Rpl_semi_sync_source_clients')`)
	if err != nil {
		return fmt.Errorf("%w: %w", errNotAcked, err)
	}
	defer rows.Close()
	on, clients := false, int64(0)
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return fmt.Errorf("%w: %w", errNotAcked, err)
		}
		switch strings.ToLower(name) {
		case "rpl_semi_sync_master_status", "rpl_semi_sync_source_status":
			on = on || strings.EqualFold(value, "ON")
		case "rpl_semi_sync_master_clients", "rpl_semi_sync_source_clients":
			n, _ := strconv.ParseInt(value, 10, 64)
			clients = max(clients, n)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%w: %w", errNotAcked, err)
	}
	switch {
	case !on:
		return fmt.Errorf("%w: semi-synchronous replication is off (Rpl_semi_sync_master_status OFF: not enabled, or it timed out waiting for a replica after rpl_semi_sync_master_timeout), %d replicas must acknowledge", errNotAcked, need)
	case clients < need:
		return fmt.Errorf("%w: %d semi-synchronous replicas connected, %d must acknowledge: one left the primary (a replica promoted while this primary still serves?) or runs without rpl_semi_sync_slave_enabled", errNotAcked, clients, need)
	}
	return nil
}

// busyFor bounds how long a claim retries a busy SQLite database.
const busyFor = 10 * time.Second

// sqliteBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED
// (modernc.org/sqlite and mattn/go-sqlite3 both say "database is locked"
// or "database table is locked").
func sqliteBusy(err error) bool {
	s := err.Error()
	return strings.Contains(s, "database is locked") || strings.Contains(s, "SQLITE_BUSY") ||
		strings.Contains(s, "database table is locked") || strings.Contains(s, "SQLITE_LOCKED")
}

// busyRetry runs f again while it fails with a busy SQLite database, until
// ctx ends or for busyFor.
func busyRetry(ctx context.Context, f func() error) error {
	until := time.Now().Add(busyFor)
	for pause := time.Millisecond; ; pause = min(2*pause, 20*time.Millisecond) {
		err := f()
		if err == nil || !sqliteBusy(err) || ctx.Err() != nil || time.Now().After(until) {
			return err
		}
		time.Sleep(pause)
	}
}

// exec runs a statement that completes a claim through q, retrying a busy
// SQLite database: a claim retried from the start would take another
// node.
func (b *store) exec(ctx context.Context, q querier, query string, args ...any) error {
	return busyRetry(ctx, func() error {
		_, err := q.ExecContext(ctx, query, args...)
		return err
	})
}

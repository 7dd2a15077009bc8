package sqllease

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/idkit-go/idkit/dialect"
	"github.com/idkit-go/idkit/generator/internal/sqldialect"
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
	if need == 0 && (len(b.standbys) == 0 || b.split) {
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

// acked waits until need replicas, and the standbys named in
// StoreOptions.Standbys, have every write this process's connections
// committed so far, for at most ttl/2 or until ctx ends.
func (b *store) acked(ctx context.Context, need int64, ttl time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, max(ttl/2, 10*time.Millisecond))
	defer cancel()
	switch {
	case need > 0 && b.d == dialect.Postgres:
		if err := sqldialect.PGAcked(ctx, b.db, need); err != nil {
			return err
		}
	case need > 0 && b.d == dialect.MySQL:
		return sqldialect.SemiSyncAcked(ctx, b.db, need)
	}
	if len(b.standbys) > 0 && !b.split {
		return sqldialect.PGStandbysAcked(ctx, b.db, b.standbys)
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

package sqllease

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/idkit-go/idkit/dialect"
	"github.com/idkit-go/idkit/generator/internal/sqldialect"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/internal/failover"
)

// Failover detection on SQL (see docs/leases.md). The lease table keeps an
// identity row, node -1 (never claimed: claims look at nodes from 0),
// written with the table when it is created: its owner is the identity of
// the server that wrote it, its mark (hwm_ns) the floor that claims after
// the last detected loss start from, and its version the horizon, the
// longest TTL + BorrowAhead + unit + MaxClockOffset of any holder (ns),
// which claims raise. Every claim reads the row, the server's identity and
// clock in its own statement (no extra round trip). PostgreSQL's identity
// is the system identifier and the timeline (which a promotion or a
// point-in-time restore changes); MySQL's is @@server_id and
// @@server_uuid, MariaDB's @@server_id; SQLite has none (''). A claim that
// finds the identity changed or the row missing, or is told of a loss
// (Claim.Lost), assumes holders the store forgot may still issue IDs: its
// floor and the recorded mark become the database's clock when the claim
// ran plus the horizon. An operator marks a restored table by setting the
// row's owner to anything else (docs/leases.md).
//
// A renewal proves continuity: the server and the identity row show the
// identity the lease saw, the row is the lease's and had not expired when
// the renewal ran, and its version (raised by every write) is not below
// the one the lease saw. Then nobody else wrote the row since: a claim
// needs the row expired and changes the owner, and a store that forgot
// such a claim either changed identity, or went back to a version below
// the lease's, or left the row expired, or was marked restored by the
// operator (docs/leases.md). A renewal of an expired row heals as a claim
// that waits the horizon (ErrLapsed).

// identity is what a claim read: the identity row's owner, mark and
// horizon, the server's identity and clock (Unix ns) now, the replicas
// streaming now and the most recorded under this identity.
type identity struct {
	stored   sql.NullString
	mark     sql.NullInt64
	horizon  sql.NullInt64
	now      string
	clock    int64
	replicas int64
	recorded sql.NullInt64
}

func (id *identity) dest() []any {
	return []any{&id.stored, &id.mark, &id.horizon, &id.now, &id.clock, &id.replicas, &id.recorded}
}

// sqlGuard is what a process learned when it first opened a table: the SQL
// expression of the server's identity (the empty string if it cannot be
// read), the warnings to log once, and what makes a primary with replicas
// unsafe without AllowSplitBrain (replicas.go).
type sqlGuard struct {
	ident      string
	replicas   string // the SQL expression counting the failover targets
	warns      []string
	splitWarns []string // logged too by the stores with AllowSplitBrain
	warned     atomic.Bool
	unsafe     string // why the replicas cannot acknowledge; "" if they can
}

// warn logs the guard's warnings once, on the first claim, with those of
// AllowSplitBrain if split.
func (g *sqlGuard) warn(log *slog.Logger, split bool) {
	warns := g.warns
	if split {
		warns = append(warns[:len(warns):len(warns)], g.splitWarns...)
	}
	if len(warns) == 0 || log == nil || g.warned.Load() || g.warned.Swap(true) {
		return
	}
	for _, w := range warns {
		log.Warn(w)
	}
}

// guard completes r, a claim that read the node's floor and id (far: the
// node's expiry was out of bounds): it waits out a loss, records it and
// the claimer's horizon, through q: the claim's own transaction on SQLite,
// db elsewhere. A node whose mark or expiry was out of bounds (rewritten
// by the claim, bounds.go) is a loss of that node: the claim alone waits
// out the horizon.
func (b *store) guard(ctx context.Context, q querier, c node.Claim, r node.Claimed, floor int64, far bool, id identity) (node.Claimed, bool, error) {
	if err := id.corrupt(); err != nil {
		return r, false, err
	}
	need := b.need(id)
	r.Seen.Ident = seenIdent(id.now, need)
	horizon := max(id.horizon.Int64, int64(c.Horizon))
	wait := id.clock + horizon // the floor after a loss
	var healed string          // the field out of bounds
	switch {
	case badMark(floor, id.clock):
		healed = fmt.Sprintf("field hwm_ns of node %d holds %d", r.Node, floor)
		floor = 0
	case far:
		healed = fmt.Sprintf("field expires_at of node %d is more than %v ahead", r.Node, maxHorizon)
	}
	if healed != "" {
		r.Kept = false // the row is not as the lease saw it
	}
	r.Floor = max(floor, id.mark.Int64)
	if (c.Lapsed || healed != "") && !failover.Off.Load() {
		r.Floor = max(r.Floor, wait)
	}
	if healed != "" && c.Log != nil {
		c.Log.Warn("lease store: "+healed+", out of bounds (corrupt): the claim rewrites it and waits out earlier holders",
			"floor", time.Unix(0, r.Floor))
	}
	if !id.stored.Valid || id.stored.String != id.now || c.Lost {
		mark := id.mark.Int64
		if !failover.Off.Load() {
			mark = max(mark, wait)
			r.Floor, r.Forgot = max(r.Floor, mark), true
		}
		switch {
		case c.Log != nil && r.Kept:
			// The lease keeps its node without waiting for the floor if
			// its trust has not ended (docs/leases.md, "Failover without
			// a pause"); every other claim waits out earlier holders.
			c.Log.Warn("lease store forgot writes or changed identity (failover, restore or lost table row), and has this holder's row as it saw it: other claims wait out earlier holders",
				"was", id.stored.String, "now", id.now, "node", r.Node, "floor", time.Unix(0, r.Floor))
		case c.Log != nil:
			c.Log.Warn("lease store forgot writes (failover, restore or lost table row): waiting out earlier holders",
				"was", id.stored.String, "now", id.now, "floor", time.Unix(0, r.Floor))
		}
		// The renewals check the row: the claim fails unless it is written.
		if err := b.exec(ctx, q, b.s.marker, id.now, mark, horizon); err != nil {
			return r, false, fmt.Errorf("record the store's identity: %w", err)
		}
		b.t.horizon.Store(horizon)
		return r, true, b.replicated(ctx, q, c.TTL, id, need)
	}
	// The claim read the stored horizon: raise it whenever it is below
	// this holder's, whoever lowered it (a loss) or raised it last.
	if id.horizon.Int64 < int64(c.Horizon) {
		if err := b.raise(ctx, q, int64(c.Horizon)); err != nil {
			return r, false, fmt.Errorf("record the horizon: %w", err)
		}
	}
	b.t.horizon.Store(horizon)
	return r, true, b.replicated(ctx, q, c.TTL, id, need)
}

// raise raises the stored horizon to h, through q on SQLite (the claim's
// transaction, which holds the database). Elsewhere it does not queue
// for the identity row: in a herd on a new table every claim read 0, and
// a thousand writes of that one row, each waiting for the one before,
// stalled MariaDB. It reads the horizon without a lock, and raises it
// only if it is below h, in a transaction that takes the row unless
// another holds it (SKIP LOCKED); then it waits and reads again.
func (b *store) raise(ctx context.Context, q querier, h int64) error {
	if b.d == dialect.SQLite {
		return b.exec(ctx, q, b.s.horizon, h, h)
	}
	for pause := lockPoll; ; pause = min(2*pause, 16*lockPoll) {
		var stored int64
		switch err := b.db.QueryRowContext(ctx, b.s.stored).Scan(&stored); {
		case errors.Is(err, sql.ErrNoRows):
			return nil // no identity row: the next claim sees the loss
		case err != nil:
			return err
		case stored >= h:
			return nil
		}
		tx, err := b.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
		if err != nil {
			return err
		}
		var n int64
		switch err := tx.QueryRowContext(ctx, b.s.lockIdent).Scan(&n); {
		case err == nil:
			if _, err := tx.ExecContext(ctx, b.s.horizon, h, h); err != nil {
				_ = tx.Rollback()
				return err
			}
			return tx.Commit()
		case !errors.Is(err, sql.ErrNoRows):
			_ = tx.Rollback()
			return err
		}
		_ = tx.Rollback()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause/2 + rand.N(pause)):
		}
	}
}

// Renew renews r.Node if the database proves it holds what the lease saw
// (see above) and the replicas the lease saw acknowledge it
// (replicas.go); otherwise it tells a loss ([node.ErrForgot]) from a
// lapse ([node.ErrLapsed]) and another holder ([node.ErrLeaseLost]).
func (b *store) Renew(ctx context.Context, r node.Renewal) (node.Seen, error) {
	if err := b.ready(ctx); err != nil {
		return r.Seen, err
	}
	if err := checkHorizon(r.Horizon); err != nil {
		return r.Seen, err
	}
	ident, need := splitSeen(r.Seen.Ident)
	horizon := int64(r.Horizon)
	args := []any{b.s.ttlArg(r.TTL), r.Bound, r.Node, r.Owner, r.Seen.Version, ident, horizon}
	seen := node.Seen{Ident: r.Seen.Ident}
	var streaming int64 // the replicas streaming now
	var err error
	switch {
	case b.d == dialect.SQLite:
		// SQLite updates one table a statement: the horizon is raised
		// apart, in the renewal's transaction (sqliteRenew).
		err = b.sqliteRenew(ctx, func(q querier) error {
			if err := q.QueryRowContext(ctx, b.s.proven, args[:6]...).Scan(&seen.Version); err != nil {
				return err
			}
			if _, err := q.ExecContext(ctx, b.s.horizon, horizon, horizon); err != nil {
				return fmt.Errorf("record the horizon: %w", err)
			}
			return nil
		})
	case b.d == dialect.MySQL:
		var res sql.Result
		if res, err = b.db.ExecContext(ctx, b.s.proven, args[:6]...); err == nil {
			var n int64
			if n, err = res.RowsAffected(); err == nil && n == 1 {
				seen.Version, err = res.LastInsertId()
			} else if err == nil {
				err = sql.ErrNoRows
			}
		}
		// Raised apart, and only above what this process last saw the
		// store hold: a write of the identity row locks out every
		// renewal of the table until it commits.
		if err == nil && horizon > b.t.horizon.Load() {
			if err = b.raise(ctx, b.db, horizon); err != nil {
				return r.Seen, fmt.Errorf("sqllease: renew node %d: record the horizon: %w", r.Node, err)
			}
			b.t.raised(horizon)
		}
	default:
		err = b.db.QueryRowContext(ctx, b.s.proven, args...).Scan(&seen.Version, &streaming)
	}
	if err == nil && b.d == dialect.MySQL && !b.split {
		if err := b.db.QueryRowContext(ctx, b.s.streams).Scan(&streaming); err != nil {
			return r.Seen, fmt.Errorf("sqllease: renew node %d: count the replicas: %w", r.Node, err)
		}
	}
	if err == nil {
		// A replica that joined since the claim is waited for from now
		// on, by this renewal and the lease's next ones: a replica promoted
		// later must have every renewal the old primary answered.
		if !b.split && streaming > need {
			// Recorded under the server's identity too, so that a new
			// process on this primary waits for it as well (row -2).
			if b.t.guard.ident != "''" {
				if err := b.exec(ctx, b.db, b.s.record, ident, streaming); err != nil {
					return r.Seen, fmt.Errorf("sqllease: renew node %d: record the replicas: %w", r.Node, err)
				}
			}
			need = streaming
			seen.Ident = seenIdent(ident, need)
		}
		if (need > 0 || len(b.standbys) > 0) && !b.split {
			if err := b.acked(ctx, need, r.TTL); err != nil {
				return r.Seen, fmt.Errorf("sqllease: renew node %d: %w", r.Node, err)
			}
		}
		return seen, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		switch {
		case !b.tableGone(ctx):
		case need == 0:
			// The row went with the table: the store forgot the lease.
			return r.Seen, fmt.Errorf("sqllease: renew node %d: %w: the lease table is gone (%v)", r.Node, node.ErrForgot, err)
		default:
			// The server lost its data, and the replicas the lease saw
			// with it: one may have been promoted (split brain). The lease
			// stays fenced, as when a replica it saw left.
			return r.Seen, fmt.Errorf("sqllease: renew node %d: the lease table is gone from a primary that had %d replicas (restarted without its data after a replica was promoted?): %w", r.Node, need, err)
		}
		return r.Seen, fmt.Errorf("sqllease: renew node %d: %w", r.Node, err)
	}
	return r.Seen, b.unproven(ctx, r)
}

// unproven returns why a renewal of r was refused.
func (b *store) unproven(ctx context.Context, r node.Renewal) error {
	r.Seen.Ident, _ = splitSeen(r.Seen.Ident)
	var owner, stored sql.NullString
	var version, mark sql.NullInt64
	var expired, far sql.NullBool
	var now string
	var clock int64
	args := []any{r.Node}
	if b.d != dialect.Postgres {
		args = []any{r.Node, r.Node, r.Node, r.Node, r.Node}
	}
	if err := b.db.QueryRowContext(ctx, b.s.probe, args...).Scan(&owner, &version, &expired, &stored, &now, &mark, &clock, &far); err != nil {
		return fmt.Errorf("sqllease: renew node %d: %w", r.Node, err)
	}
	mine := owner.Valid && owner.String == r.Owner
	switch {
	case now != r.Seen.Ident || !stored.Valid || stored.String != r.Seen.Ident:
		return fmt.Errorf("sqllease: renew node %d: %w: identity %q, recorded %q, the lease saw %q", r.Node, node.ErrForgot, now, stored.String, r.Seen.Ident)
	case mine && version.Valid && badVersion(version.Int64):
		return fmt.Errorf("sqllease: renew node %d: %w: %w: field version of node %d holds %d, not a version from 0 to 2^53", r.Node, node.ErrForgot, node.ErrCorrupt, r.Node, version.Int64)
	case mine && mark.Valid && badMark(mark.Int64, clock):
		return fmt.Errorf("sqllease: renew node %d: %w: %w: field hwm_ns of node %d holds %d, not a time (Unix ns) from 0 to the server's clock + %v", r.Node, node.ErrForgot, node.ErrCorrupt, r.Node, mark.Int64, maxHorizon)
	case mine && far.Bool:
		return fmt.Errorf("sqllease: renew node %d: %w: %w: field expires_at of node %d is more than %v after the server's clock", r.Node, node.ErrForgot, node.ErrCorrupt, r.Node, maxHorizon)
	case !owner.Valid || version.Int64 < r.Seen.Version:
		return fmt.Errorf("sqllease: renew node %d: %w: version %d, the lease saw %d", r.Node, node.ErrForgot, version.Int64, r.Seen.Version)
	case owner.String != r.Owner:
		return fmt.Errorf("%w: node %d is no longer held by %s", node.ErrLeaseLost, r.Node, r.Owner)
	case expired.Bool:
		return fmt.Errorf("%w: node %d: %w", node.ErrLeaseLost, r.Node, node.ErrLapsed)
	}
	return fmt.Errorf("sqllease: renew node %d: not renewed, retrying", r.Node)
}

// probeGuard reads, once per table and process, whether the server's
// identity can be read, and what makes its leases unsafe across a failover
// or crash, as warnings. It returns an error, and no guard, if the server
// cannot be queried at all or is a standby in recovery: a process that
// took a passing outage for a server whose identity cannot be read would
// write an empty identity over the one the others record, and fence them.
func probeGuard(ctx context.Context, db *sql.DB, d dialect.Dialect) (*sqlGuard, error) {
	g := &sqlGuard{ident: "''"}
	switch d {
	case dialect.Postgres:
		const ident = `((SELECT system_identifier::text FROM pg_control_system()) || '/' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))`
		var id, commit, fsync string
		var replicas, sync int
		var err error
		for try := 0; try < 2; try++ {
			err = db.QueryRowContext(ctx, `SELECT `+ident+`, current_setting('synchronous_commit'), current_setting('fsync'),
	`+sqldialect.PGReplicas+`, (SELECT count(*) FROM pg_stat_get_wal_senders() WHERE sync_state IN ('sync', 'quorum'))`).
				Scan(&id, &commit, &fsync, &replicas, &sync)
			if err == nil {
				break
			}
			// Unreachable or a standby: an error. Reachable: the server
			// came back since, or the identity cannot be read; try again.
			var standby bool
			if err := db.QueryRowContext(ctx, `SELECT pg_is_in_recovery()`).Scan(&standby); err != nil {
				return nil, err
			}
			if standby {
				return nil, errors.New("the server is a standby in recovery")
			}
		}
		if err != nil {
			g.warns = append(g.warns, fmt.Sprintf("lease store cannot read the server's identity (%v): a failover to an asynchronous replica goes unnoticed and may repeat IDs; grant EXECUTE on pg_control_system() and pg_current_wal_lsn(), or replicate synchronously", err))
			// The replicas are counted all the same: a role that cannot
			// see them is refused, never counted as having none.
			count, blind, err := sqldialect.Replicas(ctx, db, d, false)
			if err != nil {
				return nil, err
			}
			g.replicas, g.unsafe = count, blind
			return g, nil
		}
		g.ident = ident
		if fsync == "off" {
			g.warns = append(g.warns, "lease store on PostgreSQL with fsync = off: a crash of the server may forget lease writes unnoticed and repeat IDs; set fsync = on")
		}
		if commit == "off" {
			g.warns = append(g.warns, "lease store on PostgreSQL with synchronous_commit = off: a crash may forget lease writes unnoticed and repeat IDs; set synchronous_commit = on")
		}
		count, blind, err := sqldialect.Replicas(ctx, db, d, false)
		if err != nil {
			return nil, err
		}
		g.replicas, g.unsafe = count, blind
		if replicas > sync && sync == 0 {
			g.splitWarns = append(g.splitWarns, fmt.Sprintf("lease store on a primary with %d asynchronous replicas and no synchronous standby, with AllowSplitBrain: claims and renewals do not wait for the replicas; a failover may forget leases (claims after one wait the longest TTL + BorrowAhead + MaxClockOffset of the holders), and a replica promoted while this primary still serves repeats IDs; synchronous_standby_names avoids both", replicas))
		}
	case dialect.MySQL:
		var version string
		var flush int
		probe := func() error {
			return db.QueryRowContext(ctx, `SELECT VERSION(), @@innodb_flush_log_at_trx_commit`).Scan(&version, &flush)
		}
		err := probe()
		if err != nil {
			// Unreachable: an error. Reachable: try again, as above.
			var one int
			if err := db.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
				return nil, err
			}
			err = probe()
		}
		if err != nil {
			g.warns = append(g.warns, fmt.Sprintf("lease store cannot read the server's identity (%v): a failover to an asynchronous replica goes unnoticed and may repeat IDs", err))
			return g, nil
		}
		mariadb := strings.Contains(strings.ToLower(version), "mariadb")
		g.ident = sqldialect.MySQLIdent
		if mariadb {
			g.ident = sqldialect.MariaDBIdent
		}
		if flush != 1 {
			g.warns = append(g.warns, fmt.Sprintf("lease store on a server with innodb_flush_log_at_trx_commit = %d: a crash may forget lease writes unnoticed and repeat IDs; set it to 1", flush))
		}
		count, blind, err := sqldialect.Replicas(ctx, db, d, mariadb)
		if err != nil {
			return nil, err
		}
		g.replicas, g.unsafe = count, blind
		var replicas int
		_ = db.QueryRowContext(ctx, `SELECT `+count).Scan(&replicas)
		if replicas > 0 && !sqldialect.SemiSyncAfterSync(ctx, db) {
			g.unsafe = fmt.Sprintf("%d replicas read this primary's binary log without semi-synchronous replication: a replica promoted while this primary still serves its holders would repeat IDs; set rpl_semi_sync_master_enabled = ON and rpl_semi_sync_master_wait_point = AFTER_SYNC (MySQL: rpl_semi_sync_source_*) on the primary and rpl_semi_sync_slave_enabled = ON on every replica", replicas)
			g.splitWarns = append(g.splitWarns, fmt.Sprintf("lease store on a primary with %d asynchronous replicas (no semi-synchronous replication waiting AFTER_SYNC), with AllowSplitBrain: a failover may forget leases (claims after one wait the longest TTL + BorrowAhead + MaxClockOffset of the holders), and a replica promoted while this primary still serves repeats IDs; rpl_semi_sync_master_enabled with rpl_semi_sync_master_wait_point = AFTER_SYNC avoids both", replicas))
		}
	}
	return g, nil
}

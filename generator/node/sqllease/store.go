package sqllease

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/idkit-go/idkit/dialect"
	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/internal/sqldialect"
	"github.com/idkit-go/idkit/generator/node"
)

// defaultTable is the lease table of a store whose [StoreOptions].Table
// is empty.
const defaultTable = "idkit_node_leases"

// StoreOptions configures [NewStore].
type StoreOptions struct {
	// Table is the lease table, a plain identifier. Default "idkit_node_leases".
	Table string
	// Dialect is [dialect.Postgres], [dialect.MySQL] or [dialect.SQLite];
	// the zero value detects it from the driver.
	Dialect dialect.Dialect
	// AllowSplitBrain, if true, makes claims and renewals on a primary
	// with replicas return without their acknowledgement, and lets the
	// store use a MySQL or MariaDB primary whose replicas are
	// asynchronous. A replica promoted while the old primary still serves
	// its holders then lets both issue the same IDs:
	// https://github.com/idkit-go/idkit/blob/main/docs/leases.md#split-brain
	AllowSplitBrain bool
	// Standbys names, by application_name, the PostgreSQL standbys a
	// failover may promote. Every claim and renewal then also waits until
	// each has flushed the write, and a named standby that does not stream
	// from the primary fails it: the store is refused with
	// [generator.ErrInvalidConfig] if one is missing when it opens the
	// table. This closes what the primary cannot see: a cascading standby
	// (streaming from another standby) appears in no pg_stat_replication of
	// the primary, so without it a promotion of one may repeat IDs
	// (https://github.com/idkit-go/idkit/blob/main/docs/leases.md#what-the-rule-cannot-cover).
	// PostgreSQL only; ignored with AllowSplitBrain.
	Standbys []string
}

// NewStore returns the [node.Store] of the lease table opts.Table in db,
// for [node.NewLease]; one store serves any number of leases. A claim
// takes the lowest free or expired node with FOR UPDATE SKIP LOCKED (BEGIN
// IMMEDIATE on SQLite); on MySQL/MariaDB, in a layout of more than 64
// nodes, the first from a node picked at random, then from node 0.
//
// NewStore itself does no I/O. The store's first request reads the
// server's identity and replicas and creates the table if it is missing
// (one process does this once per handle and table). With a nil db, a bad
// table name or an undetectable dialect, every method returns an error
// wrapping [generator.ErrInvalidConfig]; so does every request, unless
// AllowSplitBrain, on a MySQL or MariaDB primary with replicas and no
// semi-synchronous replication in force; so does a request whose role can
// neither read the table nor create it (the error names the grants), and
// on SQLite one whose database is in memory, private to each connection,
// with a pool that may open more than one. On a PostgreSQL standby in
// recovery every request fails. On a primary with replicas, each claim
// and renewal returns only once every replica the lease saw at its claim
// has the write (replicas.go).
func NewStore(db *sql.DB, opts StoreOptions) node.Store {
	b := &store{db: db, split: opts.AllowSplitBrain, table: opts.Table, standbys: opts.Standbys}
	if b.table == "" {
		b.table = defaultTable
	}
	if db == nil {
		b.err = fmt.Errorf("%w: sqllease: nil *sql.DB", generator.ErrInvalidConfig)
		return b
	}
	switch d, ok := sqldialect.Resolve(db, opts.Dialect); {
	case !sqldialect.ValidIdent(b.table):
		b.err = fmt.Errorf("%w: sqllease: table name %q is not a plain identifier", generator.ErrInvalidConfig, b.table)
	case !ok:
		b.err = fmt.Errorf("%w: sqllease: cannot tell the SQL dialect of driver %T; set Dialect", generator.ErrInvalidConfig, db.Driver())
	case len(opts.Standbys) > 0 && d != dialect.Postgres:
		b.err = fmt.Errorf("%w: sqllease: Standbys names PostgreSQL standbys; the dialect is %s", generator.ErrInvalidConfig, d)
	default:
		b.d = d
		v, _ := tables.LoadOrStore(tableKey{weak.Make(db), b.table}, &tableState{claiming: make(chan struct{}, claimsAtOnce)})
		b.t = v.(*tableState)
	}
	return b
}

// ready returns b.err, or on the store's first request sets it up: the
// table created once per handle and table, the server's identity read, and
// a setup that invites split brain refused.
func (b *store) ready(ctx context.Context) error {
	if b.err != nil || b.set.Load() {
		return b.err
	}
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	if b.set.Load() {
		return nil
	}
	if !b.t.created {
		g, err := probeGuard(ctx, b.db, b.d)
		if err != nil {
			return fmt.Errorf("sqllease: lease table %s: %w", b.table, err)
		}
		s := leaseStmts(b.d, b.table, g)
		if err := createLeaseTable(ctx, b.db, b.d, s, b.table); err != nil {
			return err
		}
		if b.d == dialect.SQLite {
			if err := oneDatabase(ctx, b.db, s); err != nil {
				b.err = fmt.Errorf("%w: sqllease: lease table %s: %w", generator.ErrInvalidConfig, b.table, err)
				return b.err
			}
		}
		b.t.created = true
		b.t.seeded.Store(-1)
		b.t.guard = g
	}
	if err := b.t.guard.refuse(b.split); err != nil {
		b.err = fmt.Errorf("%w: sqllease: lease table %s: %s", generator.ErrInvalidConfig, b.table, err)
		return b.err
	}
	if len(b.standbys) > 0 && !b.split {
		// Not kept: the next request asks again.
		if err := sqldialect.PGStandbysStream(ctx, b.db, b.standbys); err != nil {
			return fmt.Errorf("%w: sqllease: lease table %s: StoreOptions.Standbys: %w", generator.ErrInvalidConfig, b.table, err)
		}
	}
	b.s = leaseStmts(b.d, b.table, b.t.guard)
	b.set.Store(true)
	return nil
}

// oneDatabase returns an error if db is an SQLite database in memory
// (its main database has no file) that is private to each connection,
// while db may open more than one: each connection would see a database
// of its own, without the lease table. Two connections held at once
// must both see the table just created.
func oneDatabase(ctx context.Context, db *sql.DB, s sqlStmts) error {
	if db.Stats().MaxOpenConnections == 1 {
		return nil
	}
	var file string
	if err := db.QueryRowContext(ctx, `SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&file); err != nil || file != "" {
		return nil // a file, or an SQLite too old to tell: its errors will say
	}
	c1, err := db.Conn(ctx)
	if err != nil {
		return nil
	}
	defer c1.Close()
	c2, err := db.Conn(ctx)
	if err != nil {
		return nil
	}
	defer c2.Close()
	var n1, n2 int64
	if c1.QueryRowContext(ctx, s.exists).Scan(&n1) != nil || c2.QueryRowContext(ctx, s.exists).Scan(&n2) != nil || n1 == 1 && n2 == 1 {
		return nil
	}
	return errors.New("the SQLite database is in memory and private to each connection, and the pool may open several (SetMaxOpenConns is not 1): each would see a database of its own; " +
		"open a file, or a shared in-memory database (file::memory:?cache=shared, or file:name?mode=memory&cache=shared), or call db.SetMaxOpenConns(1)")
}

// tables remembers, per database handle and lease table, that the table
// exists and the highest node up to which its rows are known to exist, so
// that the leases of one process (each with a store of its own) create
// and fill the table once, even when they start together. The handle is
// held weakly.
var tables sync.Map // tableKey -> *tableState

// tableState is what tables knows of one table; mu serializes creating
// and filling it.
type tableState struct {
	mu       sync.Mutex
	created  bool
	claiming chan struct{} // a slot per claim running (claimsAtOnce)
	seeded   atomic.Int64  // rows [0, seeded] are known to exist
	gone     atomic.Bool   // a request found the table missing: the next claim creates it
	guard    *sqlGuard     // failover detection (identity.go)
	horizon  atomic.Int64  // the horizon the store held at this process's last claim or raise (MySQL renewals raise it only above)
}

// raised records that the store's horizon is at least h.
func (t *tableState) raised(h int64) {
	for old := t.horizon.Load(); old < h && !t.horizon.CompareAndSwap(old, h); old = t.horizon.Load() {
	}
}

type tableKey struct {
	db    weak.Pointer[sql.DB]
	table string
}

// store is the [node.Store] of one lease table.
type store struct {
	db       *sql.DB
	d        dialect.Dialect
	table    string
	split    bool     // AllowSplitBrain
	standbys []string // StoreOptions.Standbys
	err      error    // a bad option, or a setup refused; set before set is

	set atomic.Bool // ready has run: s holds the statements
	s   sqlStmts
	t   *tableState
}

// claimsAtOnce bounds the claims one process runs at once on one table.
// Claims that scan from node 0 contend for the same lowest free rows, so
// more at once only adds lock waits and context switches on the server:
// 1,000 claims through a 40-connection pool finished sooner queued here
// than queued there (docs/leases.md, "Claim herd"; measured before
// MySQL/MariaDB claims scanned from a node at random, see scanFrom).
const claimsAtOnce = 2

// seedChunk is how many rows one seeding INSERT adds.
const seedChunk = 256

// seed makes sure rows [0, maxNode] exist: a free row per missing node.
// Unless force, a store checks once. The check and the rows go in one
// transaction that first locks the identity row (SQLite: BEGIN
// IMMEDIATE), so that of many processes starting at once on a new table
// one adds the rows and the others wait for it, then find them, instead
// of each inserting every row over the others' (docs/leases.md, "How
// claims spread"). The others do not queue for the row lock: a thousand
// transactions waiting on one InnoDB row stalled MariaDB for a minute.
// They find it taken (SKIP LOCKED) and read again until the rows are
// there or the lock is free.
func (b *store) seed(ctx context.Context, maxNode int64, force bool) error {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	for pause := lockPoll; ; pause = min(2*pause, 16*lockPoll) {
		if b.t.seeded.Load() >= maxNode && !force {
			return nil
		}
		if !force {
			var last int64
			if err := b.db.QueryRowContext(ctx, b.s.has, maxNode).Scan(&last); err != nil {
				return err
			}
			if last == 1 {
				b.t.seeded.Store(max(b.t.seeded.Load(), maxNode))
				return nil
			}
		}
		if err := b.seedLocked(ctx, maxNode, force); !errors.Is(err, errSeeding) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause/2 + rand.N(pause)):
		}
	}
}

// lockPoll is the first pause of a store that found another holding the
// identity row (adding rows, or raising the horizon); it doubles up to 16
// times this.
const lockPoll = 5 * time.Millisecond

// errSeeding: another transaction holds the identity row, adding rows.
var errSeeding = errors.New("another process is adding the lease rows")

// seedLocked adds the missing rows in [0, maxNode] in a transaction that
// holds the identity row, or returns errSeeding if another holds it.
func (b *store) seedLocked(ctx context.Context, maxNode int64, force bool) error {
	var q querier
	var commit, rollback func() error
	if b.d == dialect.SQLite {
		conn, err := b.db.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			return err
		}
		q = conn
		commit = func() error { return sqliteCommit(ctx, conn) }
		rollback = func() error { _, err := conn.ExecContext(context.Background(), "ROLLBACK"); return err }
	} else {
		tx, err := b.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
		if err != nil {
			return err
		}
		q, commit, rollback = tx, tx.Commit, tx.Rollback
		var id int64
		switch err := tx.QueryRowContext(ctx, b.s.lockIdent).Scan(&id); {
		case errors.Is(err, sql.ErrNoRows):
			// Locked by another, or missing (then there is nothing to
			// lock, and the rows go in as before).
			var n int64
			if err := tx.QueryRowContext(ctx, b.s.ident1).Scan(&n); err != nil || n != 0 {
				_ = rollback()
				return cmp.Or(err, errSeeding)
			}
		case err != nil:
			_ = rollback()
			return err
		}
	}
	done := false
	defer func() {
		if !done {
			_ = rollback()
		}
	}()
	// Rows are added in ascending chunks, so the last row's presence tells
	// that all are there; a claim that finds no free row counts them all.
	var last, n int64
	if !force {
		if err := q.QueryRowContext(ctx, b.s.has, maxNode).Scan(&last); err != nil {
			return err
		}
	}
	if last == 1 {
		n = maxNode + 1
	} else if err := q.QueryRowContext(ctx, b.s.count, maxNode).Scan(&n); err != nil {
		return err
	}
	for lo := int64(0); n < maxNode+1 && lo <= maxNode; lo += seedChunk {
		hi := min(lo+seedChunk-1, maxNode)
		args := make([]any, 0, hi-lo+1)
		for i := lo; i <= hi; i++ {
			args = append(args, i)
		}
		if _, err := q.ExecContext(ctx, b.s.seed(len(args)), args...); err != nil {
			return err
		}
	}
	if err := commit(); err != nil {
		return err // rolled back: a SQLite COMMIT that found the database busy leaves the transaction open
	}
	done = true
	b.t.seeded.Store(max(b.t.seeded.Load(), maxNode))
	return nil
}

// Claim claims a node, waiting out the holders the database forgot
// (identity.go). A claim that fails on a table found missing has
// the next one create it again.
func (b *store) Claim(ctx context.Context, c node.Claim) (node.Claimed, error) {
	if err := b.ready(ctx); err != nil {
		return node.Claimed{}, err
	}
	if err := checkHorizon(c.Horizon); err != nil {
		return node.Claimed{}, err
	}
	b.t.guard.warn(c.Log, b.split)
	if b.t.gone.Load() {
		if err := b.recreate(ctx); err != nil {
			return node.Claimed{}, fmt.Errorf("sqllease: claim: %w", err)
		}
	}
	r, err := b.claim(ctx, c)
	if err != nil && !errors.Is(err, node.ErrExhausted) && ctx.Err() == nil {
		b.tableGone(ctx)
	}
	return r, err
}

func (b *store) claim(ctx context.Context, c node.Claim) (node.Claimed, error) {
	maxNode, prefer := c.MaxNode, c.Prefer
	if b.t.seeded.Load() < maxNode {
		if err := b.retry(ctx, func() error { return b.seed(ctx, maxNode, false) }); err != nil {
			return node.Claimed{}, fmt.Errorf("sqllease: claim: add lease rows: %w", err)
		}
	}
	select {
	case b.t.claiming <- struct{}{}:
		defer func() { <-b.t.claiming }()
	case <-ctx.Done():
		return node.Claimed{}, fmt.Errorf("sqllease: claim: %w", ctx.Err())
	}
	// The ranges tried in turn: the preferred node, then all, lowest
	// first, or from the node scanFrom picks, then the ones below it.
	type span struct{ lo, hi int64 }
	spans := make([]span, 0, 3)
	if prefer >= 0 && prefer <= maxNode {
		spans = append(spans, span{prefer, prefer})
	}
	if from := b.scanFrom(maxNode); from > 0 {
		spans = append(spans, span{from, maxNode}, span{0, from - 1})
	} else {
		spans = append(spans, span{0, maxNode})
	}
	for pass := 0; pass < 2; pass++ {
		for _, sp := range spans {
			var r node.Claimed
			found := false
			err := b.retry(ctx, func() (err error) {
				r, found, err = b.claimIn(ctx, c, sp.lo, sp.hi)
				return err
			})
			if err != nil {
				return node.Claimed{}, fmt.Errorf("sqllease: claim: %w", err)
			}
			if found {
				return r, nil
			}
			if pass == 0 && sp.lo == prefer && sp.hi == prefer && b.missing(ctx, prefer) {
				break // a preferred node without a row is free: add it
			}
		}
		// Nothing free: unless rows went missing, every node is held.
		if pass == 0 {
			if err := b.retry(ctx, func() error { return b.seed(ctx, maxNode, true) }); err != nil {
				return node.Claimed{}, fmt.Errorf("sqllease: claim: add lease rows: %w", err)
			}
		}
	}
	return node.Claimed{}, fmt.Errorf("%w: all %d node ids are leased", node.ErrExhausted, maxNode+1)
}

// scanFrom is the node a claim without its preferred node starts its
// search at: on MySQL/MariaDB, in a layout of more than spreadNodes
// nodes, one at random; elsewhere 0, so that a claim takes the lowest
// free node. InnoDB locks each row a locking read scans before it tests
// the row (READ COMMITTED then unlocks the rows that do not match), so
// claims at once, each scanning from node 0 over the rows already held,
// contend for the locks of every held row: 1,000 claims at once left
// most claimers waiting after a minute. From a node at random a claim
// passes few held rows until the table is nearly full. PostgreSQL tests
// a row before it locks it, and SQLite runs one claim at a time.
func (b *store) scanFrom(maxNode int64) int64 {
	if b.d != dialect.MySQL || maxNode < spreadNodes {
		return 0
	}
	return rand.Int64N(maxNode + 1)
}

// spreadNodes is the most nodes a layout may have for a MySQL/MariaDB
// claim to search from node 0: such a scan passes at most 63 held rows.
const spreadNodes = 64

// tableGone reports whether the server answers that the lease table does
// not exist (dropped, or a server restarted without its data), and if so
// has the next claim create it again.
func (b *store) tableGone(ctx context.Context) bool {
	var n int64
	if err := b.db.QueryRowContext(ctx, b.s.exists).Scan(&n); err != nil || n != 0 {
		return false
	}
	b.t.gone.Store(true)
	return true
}

// recreate creates the lease table again, with its identity row, after a
// request found it missing; its rows are added again as claims need them.
func (b *store) recreate(ctx context.Context) error {
	b.t.mu.Lock()
	defer b.t.mu.Unlock()
	if !b.t.gone.Load() {
		return nil
	}
	if err := createLeaseTable(ctx, b.db, b.d, b.s, b.table); err != nil {
		return err
	}
	b.t.seeded.Store(-1)
	b.t.gone.Store(false)
	return nil
}

// missing reports whether node's row is known to be missing.
func (b *store) missing(ctx context.Context, node int64) bool {
	var n int64
	err := b.db.QueryRowContext(ctx, b.s.has, node).Scan(&n)
	return err == nil && n == 0
}

// retry runs f until it succeeds, ctx ends, or it has failed 8 times:
// deadlocks, serialization failures and busy databases are worth a few
// retries. A busy SQLite database (SQLITE_BUSY) is retried until ctx ends
// or for busyFor, without counting; a write its replicas did not
// acknowledge, or a field out of bounds, is not retried.
func (b *store) retry(ctx context.Context, f func() error) error {
	var err error
	busyUntil := time.Now().Add(busyFor)
	busy := 0
	for attempt := 0; attempt < 8; attempt++ {
		if err = f(); err == nil || ctx.Err() != nil || errors.Is(err, sqldialect.ErrNotAcked) || errors.Is(err, node.ErrCorrupt) {
			return err
		}
		if b.d == dialect.SQLite && sqliteBusy(err) && time.Now().Before(busyUntil) {
			// Back off, at random: a thousand handles retrying every
			// 2 ms take the CPU from the one holding the write lock
			// (docs/leases.md, "How claims spread").
			attempt = 0
			busy++
			d := busyBackoff << min(busy-1, 5)
			time.Sleep(d/2 + rand.N(d/2))
			continue
		}
		time.Sleep(time.Duration(attempt+1) * 2 * time.Millisecond)
	}
	return err
}

// busyBackoff is the first wait of a claim's retry of a busy SQLite
// database; it doubles with each busy answer, up to 32 times this.
const busyBackoff = 2 * time.Millisecond

// claimIn takes the first node in [lo, hi] that is free or expired, or held
// by owner if it is prefer; found is false if there is none.
func (b *store) claimIn(ctx context.Context, c node.Claim, lo, hi int64) (r node.Claimed, found bool, err error) {
	owner, prefer, bound := c.Owner, c.Prefer, c.Bound
	ttlArg := b.s.ttlArg(c.TTL)
	var id identity
	var floor, version int64 // the node's mark and version before the claim
	var far bool             // the node's expiry was out of bounds (bounds.go)
	var was string           // the node's owner before the claim
	// kept: the claim took the preferred node and its row, as the claim
	// read it (locked), is the claimer's at a version not below the one
	// its Seen shows (node.Claimed.Kept); the guard clears it for a row
	// out of bounds.
	kept := func() bool {
		return r.Node == prefer && was == owner && c.Seen.Version > 0 && version >= c.Seen.Version && !badVersion(version)
	}
	if b.d == dialect.Postgres {
		err = b.db.QueryRowContext(ctx, b.s.claim, lo, hi, owner, prefer, ttlArg, bound).Scan(append([]any{&r.Node, &floor, &version, &far, &was}, id.dest()...)...)
		if errors.Is(err, sql.ErrNoRows) {
			// No candidate, or a store-wide field out of bounds: the
			// statement takes no row then.
			var now identity
			if err := b.db.QueryRowContext(ctx, b.s.current).Scan(now.dest()...); err == nil {
				if err := now.corrupt(); err != nil {
					return r, false, err
				}
			}
			return r, false, nil
		}
		if err != nil {
			return r, false, err
		}
		r.Seen.Version, r.Kept = nextVersion(version), kept()
		return b.guard(ctx, b.db, c, r, floor, far, id)
	}
	var q querier
	var commit, rollback func() error
	if b.d == dialect.SQLite {
		conn, err := b.db.Conn(ctx)
		if err != nil {
			return r, false, err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			return r, false, err
		}
		q = conn
		commit = func() error { return sqliteCommit(ctx, conn) }
		rollback = func() error { _, err := conn.ExecContext(context.Background(), "ROLLBACK"); return err }
	} else {
		tx, err := b.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
		if err != nil {
			return r, false, err
		}
		q, commit, rollback = tx, tx.Commit, tx.Rollback
	}
	done := false
	defer func() {
		if !done {
			_ = rollback()
		}
	}()
	err = q.QueryRowContext(ctx, b.s.pick, lo, hi, owner, prefer).Scan(append([]any{&r.Node, &floor, &version, &far, &was}, id.dest()...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, err
	}
	if err := id.corrupt(); err != nil {
		return r, false, err // rolled back: nothing written
	}
	mark := max(floor, bound)
	if badMark(floor, id.clock) {
		mark = bound // rewritten; the claim waits out the horizon (guard)
	}
	r.Seen.Version, r.Kept = nextVersion(version), kept()
	res, err := q.ExecContext(ctx, b.s.take, owner, ttlArg, mark, r.Seen.Version, r.Node)
	if err != nil {
		return r, false, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return r, false, err
	} else if n != 1 {
		return r, false, fmt.Errorf("sqllease: claimed row %d not updated", r.Node)
	}
	if b.d == dialect.SQLite {
		// The claim's records go in its transaction, on the connection it
		// holds: a pool of one connection has no other to give.
		if r, found, err = b.guard(ctx, q, c, r, floor, far, id); err != nil {
			return r, false, err
		}
		done = true
		if err := commit(); err != nil {
			_ = rollback()
			return r, false, err
		}
		return r, found, nil
	}
	done = true
	if err := commit(); err != nil {
		_ = rollback()
		return r, false, err
	}
	// The transaction gave its connection back: the records and the
	// replicas' acknowledgement take one from the pool.
	return b.guard(ctx, b.db, c, r, floor, far, id)
}

// querier is what a claim needs from a *sql.Tx or an *sql.Conn.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (b *store) Release(ctx context.Context, r node.Release) error {
	if err := b.ready(ctx); err != nil {
		return err
	}
	stmt := b.s.raise
	if r.Exact {
		stmt = b.s.release
	}
	if _, err := b.db.ExecContext(ctx, stmt, r.Mark, r.Node, r.Owner); err != nil {
		return fmt.Errorf("sqllease: release node %d: %w", r.Node, err)
	}
	return nil
}

// sqliteRenew runs f, a renewal's statements, in one write transaction
// (BEGIN IMMEDIATE) on a connection of the pool, committing it if f
// succeeds.
//
// The application's writers, queued for SQLite's write lock beside the
// renewal, wait in SQLite's busy handler, which sleeps between attempts
// (up to 100 ms each), and a writer that just committed takes the lock
// again at once: a renewal waiting there too lost that race for longer
// than TTL - Margin - RenewEvery under 50 writers, and its generator
// fenced. So the renewal's connection waits for the lock itself, with
// busy_timeout 0 while it holds the connection, trying every
// renewPoll: it takes the lock within one writer's transaction of it
// being free. Its busy_timeout is set back before the connection returns
// to the pool (a connection that cannot be set back is discarded). With a
// pool of one connection, the only connection in this process is the
// renewal's while it holds it, and the renewal waits in the pool's queue,
// which serves waiters in random order.
func (b *store) sqliteRenew(ctx context.Context, f func(q querier) error) error {
	conn, err := b.db.Conn(ctx)
	if err != nil {
		return err
	}
	var timeout int64
	restore := false
	defer func() {
		if restore {
			if _, err := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA busy_timeout = "+strconv.FormatInt(timeout, 10)); err != nil {
				_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			}
		}
		conn.Close()
	}()
	if err := conn.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&timeout); err == nil && timeout != 0 {
		restore = true
		if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
			return err
		}
	}
	until := time.Now().Add(busyFor)
	for {
		_, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE")
		if err == nil {
			break
		}
		if !sqliteBusy(err) || ctx.Err() != nil || time.Now().After(until) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(renewPoll):
		}
	}
	if err := f(conn); err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return err
	}
	if err := sqliteCommit(ctx, conn); err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return err
	}
	return nil
}

// sqliteCommit commits the transaction conn holds, trying again while
// readers keep the database busy: a COMMIT that meets readers leaves the
// transaction open with its write lock, and new readers wait for it, so
// the readers drain; rolling back instead threw the claim away, and with
// hundreds of processes reading the file each claim was retried from its
// BEGIN many times over.
func sqliteCommit(ctx context.Context, conn *sql.Conn) error {
	return busyRetry(ctx, func() error {
		_, err := conn.ExecContext(ctx, "COMMIT")
		return err
	})
}

// renewPoll is how often a SQLite renewal tries for the write lock.
const renewPoll = 200 * time.Microsecond

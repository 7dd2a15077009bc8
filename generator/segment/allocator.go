package segment

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idkit-go/idkit/generator/internal/sqldialect"
)

// seg is a range of IDs [next, max] being handed out.
type seg struct {
	next    atomic.Int64
	max     int64
	trigger int64 // handing out this ID or a later one starts a prefetch
}

// Allocator hands out int64 IDs for one tag, safe for concurrent use. IDs
// are unique, and increase within a segment; across allocators and
// restarts they are not ordered, and a crash skips IDs, never reissues them.
type Allocator struct {
	db   *sql.DB
	s    stmts
	tag  string
	o    Options
	base time.Time

	cur     atomic.Pointer[seg]
	idle    atomic.Bool  // no buffered segment and no fetch running
	retryAt atomic.Int64 // background fetches wait until base+retryAt

	mu        sync.Mutex
	buf       *seg
	fetching  chan struct{} // closed when the running fetch ends
	fetchErr  error
	step      int64
	lastFetch time.Time
	seen      int64 // the largest max_id fetched; only the running fetch uses it

	closed     atomic.Bool
	ctx        context.Context
	cancel     context.CancelFunc
	wg         sync.WaitGroup
	statements atomic.Int64
	segments   atomic.Int64
}

// New returns the allocator of tag, creating the table (with its record
// row, see [ErrLost]) if missing and the tag's row (max_id = opts.Start)
// if the table never held it, and fetches the first segment. It returns
// an error wrapping [ErrInvalidConfig] for bad options, an empty tag or
// one over 128 bytes, a nil db, an unknown dialect, or, unless
// AllowSplitBrain, a primary whose replicas cannot acknowledge fetches
// (the error names the setting); one wrapping [ErrLost] if the tag's row
// was deleted, the table's record row is gone or a loss is recorded; and
// the database error otherwise.
func New(ctx context.Context, db *sql.DB, tag string, opts Options) (*Allocator, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if db == nil || tag == "" || len(tag) > 128 {
		return nil, fmt.Errorf("%w: need a db and a tag of 1 to 128 bytes", ErrInvalidConfig)
	}
	d, ok := sqldialect.Resolve(db, o.Dialect)
	if !ok {
		return nil, fmt.Errorf("%w: cannot tell the SQL dialect of driver %T; set Dialect", ErrInvalidConfig, db.Driver())
	}
	o.Dialect = d
	g, err := probe(ctx, db, d, o.AllowSplitBrain)
	if err != nil {
		if errors.Is(err, ErrInvalidConfig) {
			return nil, fmt.Errorf("segment: table %s: %w", o.Table, err)
		}
		return nil, fmt.Errorf("segment: table %s: read the server's identity: %w", o.Table, err)
	}
	a := &Allocator{db: db, s: newStmts(d, o.Table, g.ident, g.replicas), tag: tag, o: o, base: time.Now(), step: o.Step}
	if err := a.ensureTable(ctx); err != nil {
		return nil, err
	}
	if err := a.seedTag(ctx); err != nil {
		return nil, err
	}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	max, err := a.take(ctx, a.step)
	a.statements.Add(1)
	if err != nil {
		a.cancel()
		return nil, fmt.Errorf("segment: first fetch for %q: %w", tag, err)
	}
	a.lastFetch = time.Now()
	a.segments.Add(1)
	a.cur.Store(a.newSeg(max, a.step))
	a.idle.Store(true)
	return a, nil
}

// take fetches a segment of step IDs and returns its max_id once the
// table's state allows handing it out (guard.go). One runs at a time.
func (a *Allocator) take(ctx context.Context, step int64) (int64, error) {
	r, err := a.s.takeStep(ctx, a.db, a.tag, step)
	if errors.Is(err, errNoRow) {
		var v sql.NullInt64
		if e := a.db.QueryRowContext(ctx, `SELECT max_id FROM `+a.o.Table+` WHERE biz_tag = `+sqldialect.P(a.o.Dialect, 1), a.tag).Scan(&v); e == nil {
			return 0, fmt.Errorf("%w: table %s: the max_id of tag %q holds %d, out of range: below 0, or above 2^63-1 minus the step (%d), so the fetch would overflow; set it to the last ID the tag handed out", ErrLost, a.o.Table, a.tag, v.Int64, step)
		}
		return 0, fmt.Errorf("%w: table %s: the row of tag %q is gone; INSERT it again with max_id above every ID the tag handed out", ErrLost, a.o.Table, a.tag)
	}
	if err != nil {
		return 0, err
	}
	if err := a.check(ctx, r, step, a.seen); err != nil {
		return 0, err
	}
	a.seen = max(a.seen, r.max)
	return r.max, nil
}

func (a *Allocator) newSeg(max, step int64) *seg {
	s := &seg{max: max}
	first := max - step + 1
	s.next.Store(first)
	s.trigger = first + int64(float64(step)*a.o.PrefetchAt)
	return s
}

// Next returns a new ID, waiting for a fetch when both segments are used
// up. It returns an error wrapping [ErrUnavailable] and the database error
// when that fetch fails, ctx.Err() if ctx ends first, and [ErrClosed] after
// Close.
func (a *Allocator) Next(ctx context.Context) (int64, error) {
	for {
		if a.closed.Load() {
			return 0, ErrClosed
		}
		s := a.cur.Load()
		v := s.next.Add(1) - 1
		if v <= s.max {
			if v >= s.trigger && a.idle.Load() && int64(time.Since(a.base)) >= a.retryAt.Load() {
				a.prefetch()
			}
			return v, nil
		}
		a.mu.Lock()
		if a.closed.Load() { // set under mu: no fetch starts after Close
			a.mu.Unlock()
			return 0, ErrClosed
		}
		if a.cur.Load() != s { // another caller moved on already
			a.mu.Unlock()
			continue
		}
		if a.buf != nil {
			a.cur.Store(a.buf)
			a.buf = nil
			a.idle.Store(a.fetching == nil)
			a.mu.Unlock()
			continue
		}
		ch := a.startFetchLocked()
		a.mu.Unlock()
		select {
		case <-ch:
		case <-a.ctx.Done(): // Close
			return 0, ErrClosed
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		a.mu.Lock()
		err, got := a.fetchErr, a.buf != nil
		a.mu.Unlock()
		if a.closed.Load() {
			return 0, ErrClosed
		}
		if !got && err != nil {
			return 0, fmt.Errorf("%w: tag %q: %w", ErrUnavailable, a.tag, err)
		}
	}
}

func (a *Allocator) prefetch() {
	a.mu.Lock()
	if a.buf == nil && a.fetching == nil && !a.closed.Load() {
		a.startFetchLocked()
	}
	a.mu.Unlock()
}

// startFetchLocked returns the channel of the running fetch, starting one
// if none runs. a.mu must be held and the allocator not closed: Close sets
// closed under a.mu before it waits, so no wg.Add follows its wg.Wait.
func (a *Allocator) startFetchLocked() chan struct{} {
	if a.fetching != nil {
		return a.fetching
	}
	ch := make(chan struct{})
	a.fetching = ch
	a.idle.Store(false)
	a.wg.Add(1)
	go a.fetch(ch)
	return ch
}

func (a *Allocator) fetch(ch chan struct{}) {
	defer a.wg.Done()
	a.mu.Lock()
	step := a.step
	if now := time.Now(); now.Sub(a.lastFetch) < a.o.Grow {
		step = min(step*2, a.o.MaxStep)
	} else if now.Sub(a.lastFetch) > a.o.Shrink {
		step = max(step/2, a.o.Step)
	}
	a.mu.Unlock()
	ctx, cancel := context.WithTimeout(a.ctx, a.o.Timeout)
	max, err := a.take(ctx, step)
	cancel()
	a.statements.Add(1)
	a.mu.Lock()
	defer a.mu.Unlock()
	if err == nil {
		a.buf, a.fetchErr = a.newSeg(max, step), nil
		a.step, a.lastFetch = step, time.Now()
		a.segments.Add(1)
	} else {
		a.fetchErr = err
		a.retryAt.Store(int64(time.Since(a.base) + a.o.RetryAfter))
	}
	a.fetching = nil
	a.idle.Store(a.buf == nil)
	close(ch)
}

// Stats are counters of an [Allocator].
type Stats struct {
	Statements int64 // fetch statements run, including failed ones
	Segments   int64 // segments fetched
	Step       int64 // size of the last segment fetched
	Buffered   int64 // IDs left in the current and next segments
}

// Stats returns the allocator's counters.
func (a *Allocator) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := Stats{Statements: a.statements.Load(), Segments: a.segments.Load(), Step: a.step}
	if s := a.cur.Load(); s != nil {
		st.Buffered += max(0, s.max-s.next.Load()+1)
	}
	if a.buf != nil {
		st.Buffered += a.buf.max - a.buf.next.Load() + 1
	}
	return st
}

// Close stops the allocator: Next then fails with [ErrClosed] (a Next
// running concurrently may still return an ID), and a fetch in flight is
// cancelled. Unused IDs are skipped. It returns nil and may be called
// again.
func (a *Allocator) Close() error {
	a.mu.Lock()
	first := a.closed.CompareAndSwap(false, true)
	a.mu.Unlock()
	if first {
		a.cancel()
	}
	a.wg.Wait()
	return nil
}

package node

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/internal/wiring"
	"github.com/idkit-go/idkit/internal/coarseclock"
)

// Lease is one process's hold on a node ID, renewed and healed in the
// background until Close. Its methods are safe for concurrent use.
type Lease struct {
	b     Store
	o     LeaseOptions
	gen   []generator.SnowflakeOption // NewSnowflake's options
	set   wiring.Settings             // what gen sets: node range, unit, clock, borrow-ahead
	log   *slog.Logger                // nil: silent
	node  atomic.Int64
	floor atomic.Int64 // the node's mark when claimed (Unix ns), 0 if none
	base  time.Time    // monotonic origin of deadline

	deadline atomic.Int64 // trusted until base + deadline (monotonic ns)
	limit    atomic.Int64 // and until the clock reads limit (Unix ns)
	// fast: while the coarse clock reads below it (Unix ms), Fence passes
	// without reading a clock; 0 sends Fence to the exact check.
	fast    atomic.Int64
	coarse  bool // set.Clock is the system clock, which the coarse clock follows
	failed  atomic.Pointer[error]
	lastErr atomic.Pointer[error]
	tracked atomic.Pointer[func() time.Time]
	fence   func() error // Fence's body

	timerMu sync.Mutex
	timer   *time.Timer // ends the fast window at the monotonic deadline

	// gens wire the generators of NewSnowflake, moved to the new node when
	// the lease heals; genMu also orders a heal against NewSnowflake.
	genMu sync.Mutex
	gens  []*wiring.Lease

	ctx       context.Context // cancelled by Close: ends a renewal in flight
	cancel    context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error

	st leaseCounters

	// seen is what the last successful request showed of the store (the
	// lease's goroutine's own after start).
	seen Seen
	// waiting counts NewSnowflake calls waiting for the floor, under genMu;
	// gone is set there when the lease stopped healing for good.
	waiting int
	gone    bool
}

// NewLease claims a node ID in s and returns the [Lease]. gen are the
// options of the generator that [NewSnowflake] makes for the lease, any
// of [generator.NewSnowflake]'s: the lease takes from them the node range
// it claims in (the layout's), and the clock, borrow-ahead and unit that
// bound the high-water marks and the horizon it records, so that every
// claim covers every ID the generator can issue. It returns an error
// wrapping [generator.ErrInvalidConfig] for bad options or a nil s, the error
// [generator.NewSnowflake] gives for bad generator options, and s's claim
// error otherwise.
func NewLease(ctx context.Context, s Store, opts LeaseOptions, gen ...generator.SnowflakeOption) (*Lease, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("%w: nil store", generator.ErrInvalidConfig)
	}
	gen = slices.Clip(slices.Clone(gen))
	set, end, err := settings(gen)
	if err != nil {
		return nil, err
	}
	// A floor after a loss lies the horizon ahead of the store's clock; a
	// layout that cannot hold it could issue no ID after a loss.
	if h := o.TTL + set.BorrowAhead + set.Unit + o.MaxClockOffset; !end.IsZero() && !set.Clock.Now().Add(h).Before(end) {
		return nil, fmt.Errorf("%w: MaxOutage %v (TTL %v): the horizon %v from now lies beyond the layout's end %s",
			generator.ErrInvalidConfig, o.MaxOutage, o.TTL, h, end.UTC().Format(time.RFC3339))
	}
	return startLease(ctx, s, o, gen, set)
}

// settings returns what the generator options gen set and the first time
// their layout cannot hold, validated as [generator.NewSnowflake]
// validates them (it reads them for the lease), or its error for them.
func settings(gen []generator.SnowflakeOption) (wiring.Settings, time.Time, error) {
	var set wiring.Settings
	g, err := generator.NewSnowflake(0, append(slices.Clip(gen), &set)...)
	if err != nil {
		return set, time.Time{}, err
	}
	return set, g.Layout().End(), nil
}

func startLease(ctx context.Context, b Store, o LeaseOptions, gen []generator.SnowflakeOption, set wiring.Settings) (*Lease, error) {
	l := &Lease{b: b, o: o, gen: gen, set: set, base: time.Now(), done: make(chan struct{})}
	if o.Logger != nil {
		l.log = o.Logger.With("owner", o.Owner)
	}
	l.coarse = l.clock() == generator.SystemClock()
	t0, c0 := time.Since(l.base), l.clock().Now()
	node, floor, err := l.claim(ctx, -1, c0, false, false)
	if err != nil {
		return nil, err
	}
	l.node.Store(node)
	l.floor.Store(max(floor, 0))
	l.st.lastOK.Store(c0.UnixNano())
	l.logf(slog.LevelInfo, "lease claimed", "node", node, "floor", l.notBefore())
	l.ctx, l.cancel = context.WithCancel(context.Background())
	// fence is Fence as a closure, which a generator calls directly.
	l.fence = func() error {
		// fast is 0 outside the window, and always with a clock other than
		// the system clock: then the coarse clock is not read (nor started).
		if f := l.fast.Load(); f != 0 && coarseclock.UnixMilli() < f {
			return nil
		}
		return l.check()
	}
	l.extend(t0, c0)
	go l.run()
	return l, nil
}

// clock is the generator's clock, which the lease's marks and limits read.
func (l *Lease) clock() generator.Clock { return l.set.Clock }

// bound is the high-water mark recorded by a request started when the
// clock read c0: the lease trusts it until c0 + TTL - Margin, and the
// generator issues at most BorrowAhead ahead of its clock, in ticks of
// one unit, so no ID issued under it can have a later time.
func (l *Lease) bound(c0 time.Time) int64 {
	return c0.Add(l.o.TTL + l.set.BorrowAhead + l.set.Unit).UnixNano()
}

// extend trusts the lease until t0 + TTL - Margin (monotonic) and c0 + TTL
// - Margin (clock), t0 and c0 read when the successful request started.
func (l *Lease) extend(t0 time.Duration, c0 time.Time) {
	l.trust(t0, c0)
	l.openFast(t0, c0)
}

// trust sets the limits Fence's exact check tests.
func (l *Lease) trust(t0 time.Duration, c0 time.Time) {
	keep := l.o.TTL - l.o.Margin
	l.deadline.Store(int64(t0 + keep))
	l.limit.Store(c0.Add(keep).UnixNano())
}

// openFast opens Fence's fast window for the limits of trust(t0, c0),
// unless the lease has failed.
func (l *Lease) openFast(t0 time.Duration, c0 time.Time) {
	keep := l.o.TTL - l.o.Margin
	if !l.coarse {
		return
	}
	// The fast window ends Margin/2 before the clock limit, by the coarse
	// clock (so a coarse clock lagging the wall clock by less than that,
	// as when the process was not scheduled for a while, cannot carry it
	// past the limit), and also at the monotonic deadline less Margin/2,
	// by a timer, in case the wall clock is set back meanwhile.
	slack := l.o.Margin / 2
	until := c0.Add(keep - slack).UnixMilli()
	l.timerMu.Lock()
	defer l.timerMu.Unlock()
	if l.failed.Load() != nil {
		return
	}
	if l.timer != nil {
		l.timer.Stop()
	}
	l.fast.Store(until)
	l.timer = time.AfterFunc(t0+keep-slack-time.Since(l.base), func() { l.fast.CompareAndSwap(until, 0) })
}

// endFast sends every later Fence to the exact check.
func (l *Lease) endFast() {
	l.timerMu.Lock()
	defer l.timerMu.Unlock()
	l.fast.Store(0)
	if l.timer != nil {
		l.timer.Stop()
	}
}

// Node returns the node ID the lease holds, or held last while it heals.
func (l *Lease) Node() int64 { return l.node.Load() }

// notBefore returns the high-water mark recorded by earlier holders of the
// node ID when this lease claimed it (the zero time if none): a generator
// using the ID must issue only IDs with later times.
func (l *Lease) notBefore() time.Time {
	if f := l.floor.Load(); f > 0 {
		return time.Unix(0, f)
	}
	return time.Time{}
}

// Fence returns nil while the lease can be trusted, and otherwise an error
// wrapping [ErrLeaseClosed] after Close, [ErrLeaseLost] once another holder
// took the ID, or [ErrLeaseExpired] when TTL - Margin has passed since the
// last successful renewal started. The generator of [NewSnowflake] checks
// it for every ID; it is cheap enough for any other work to check.
func (l *Lease) Fence() error { return l.fence() }

// check is Fence's exact test, kept out of line so that Fence inlines.
//
//go:noinline
func (l *Lease) check() error {
	if e := l.failed.Load(); e != nil {
		return *e
	}
	if time.Since(l.base) >= time.Duration(l.deadline.Load()) {
		return l.expired("not renewed in time")
	}
	if l.clock().Now().UnixNano() >= l.limit.Load() {
		return l.expired("clock passed the renewed limit")
	}
	return nil
}

func (l *Lease) expired(why string) error {
	if e := l.lastErr.Load(); e != nil {
		return fmt.Errorf("%w: node %d %s: %w", ErrLeaseExpired, l.node.Load(), why, *e)
	}
	return fmt.Errorf("%w: node %d %s", ErrLeaseExpired, l.node.Load(), why)
}

// track sets the function Close calls for the exact high-water mark to
// record: the last issued time of the generator of [NewSnowflake]. Without
// one Close keeps the last recorded upper bound.
func (l *Lease) track(lastTime func() time.Time) { l.tracked.Store(&lastTime) }

// closeTimeout is how long [Lease.Close] may take at most:
// max(RenewEvery, 1 s).
func (l *Lease) closeTimeout() time.Duration { return max(l.o.RenewEvery, time.Second) }

// Close stops the lease (Fence fails with [ErrLeaseClosed] from now on),
// records its generator's last issued time and releases the node ID. Stop
// calling the generator's Next first.
//
// Close returns within max(RenewEvery, 1 s), or when ctx ends, even with
// the store unreachable: it returns the release error, wrapping
// [context.DeadlineExceeded] or ctx.Err() if it gave up waiting. A lease
// not released expires after its TTL. Later calls return the same result.
func (l *Lease) Close(ctx context.Context) error {
	l.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, l.closeTimeout())
		defer cancel()
		closed := fmt.Errorf("%w: node %d", ErrLeaseClosed, l.node.Load())
		lost := l.failed.Swap(&closed)
		l.endFast()
		l.cancel()
		// The renewal goroutine ends at once unless the store ignores
		// cancellation; a renewal landing after the release finds another
		// owner ('') and changes nothing. A heal that claimed a node but
		// had not opened the fence releases that node itself.
		select {
		case <-l.done:
		case <-ctx.Done():
		}
		defer func() {
			l.st.state.Store(int32(LeaseClosed))
			if l.closeErr != nil {
				l.logf(slog.LevelWarn, "lease closed", "node", l.node.Load(), "error", l.closeErr)
			} else {
				l.logf(slog.LevelInfo, "lease closed", "node", l.node.Load())
			}
		}()
		if lost != nil {
			l.closeErr = nil // nothing to release: someone else holds it
			return
		}
		node, floor := l.node.Load(), l.notBefore()
		var hwm int64
		exact := false
		if f := l.tracked.Load(); f != nil {
			// An ID issued concurrently with Close read the clock no later
			// than now, so its time is at most now + borrow-ahead.
			last := (*f)()
			if c := l.clock().Now().Add(l.set.BorrowAhead); c.After(last) {
				last = c
			}
			if floor.After(last) {
				last = floor
			}
			hwm, exact = last.UnixNano(), true
		}
		// The release runs apart, so that a store ignoring ctx cannot hold
		// Close beyond its bound.
		res := make(chan error, 1)
		go func() { res <- l.b.Release(ctx, Release{Node: node, Owner: l.o.Owner, Mark: hwm, Exact: exact}) }()
		select {
		case l.closeErr = <-res:
		case <-ctx.Done():
			l.closeErr = fmt.Errorf("node: release node %d: %w", node, ctx.Err())
		}
	})
	return l.closeErr
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// horizon is how long after a request reached the store the IDs of this
// holder may still reach: TTL + BorrowAhead + unit + MaxClockOffset (see
// docs/leases.md).
func (l *Lease) horizon() time.Duration {
	return l.o.TTL + l.set.BorrowAhead + l.set.Unit + l.o.MaxClockOffset
}

// warnLog is where safety warnings go: the lease's logger, or
// slog.Default() when LeaseOptions.Logger is nil.
func (l *Lease) warnLog() *slog.Logger {
	if l.log != nil {
		return l.log
	}
	return slog.Default().With("owner", l.o.Owner)
}

// claim claims a node for the lease (prefer -1 for any), the request
// started when the clock read c0. lost: a renewal found the store forgot
// writes; lapsed: the lease expired before its renewal reached the store.
// It records what the store showed for the next renewal.
func (l *Lease) claim(ctx context.Context, prefer int64, c0 time.Time, lost, lapsed bool) (node, floor int64, err error) {
	r, err := l.b.Claim(ctx, Claim{
		Owner: l.o.Owner, TTL: l.o.TTL, MaxNode: l.set.MaxNode, Prefer: prefer,
		Bound: l.bound(c0), Horizon: l.horizon(), Lost: lost, Lapsed: lapsed, Seen: l.seen, Log: l.warnLog(),
	})
	if err != nil {
		return 0, 0, err
	}
	l.seen = r.Seen
	return r.Node, r.Floor, nil
}

// renewOnce renews node, the request started when the clock read c0: the
// store must prove it still holds what the lease last saw.
func (l *Lease) renewOnce(ctx context.Context, node int64, c0 time.Time) error {
	seen, err := l.b.Renew(ctx, Renewal{
		Node: node, Owner: l.o.Owner, TTL: l.o.TTL, Bound: l.bound(c0), Horizon: l.horizon(), Seen: l.seen,
	})
	if err == nil {
		l.seen = seen
	}
	return err
}

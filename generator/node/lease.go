package node

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// backend is a lease store: an SQL table or a Redis hash. Times are Unix
// nanoseconds of the holder's generator clock; expiry is the store's own.
type backend interface {
	// claim takes the lowest free or expired node in [0, maxNode] for
	// owner, records bound as its high-water mark (keeping a larger one),
	// and returns the node and the mark recorded before the claim.
	claim(ctx context.Context, owner string, ttl time.Duration, maxNode, bound int64) (node, floor int64, err error)
	// renew extends the lease if owner still holds node, raising the mark
	// to bound; it returns an error wrapping ErrLeaseLost otherwise.
	renew(ctx context.Context, node int64, owner string, ttl time.Duration, bound int64) error
	// release frees node if owner holds it, setting the mark to hwm when
	// exact, raising it to hwm otherwise.
	release(ctx context.Context, node int64, owner string, hwm int64, exact bool) error
}

// Lease is one process's hold on a node ID, kept alive by a background
// renewal goroutine until Close. Create one with [NewSQLLease] or
// [NewRedisLease]. Its methods are safe for concurrent use.
type Lease struct {
	b     backend
	o     LeaseOptions
	node  int64
	floor time.Time
	base  time.Time // monotonic origin of deadline

	deadline atomic.Int64 // trusted until base + deadline (monotonic ns)
	limit    atomic.Int64 // and until the clock reads limit (Unix ns)
	failed   atomic.Pointer[error]
	lastErr  atomic.Pointer[error]
	track    atomic.Pointer[func() time.Time]

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

func startLease(ctx context.Context, b backend, o LeaseOptions) (*Lease, error) {
	l := &Lease{b: b, o: o, base: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	t0, c0 := time.Since(l.base), o.Clock.Now()
	node, floor, err := b.claim(ctx, o.Owner, o.TTL, o.Layout.MaxNode(), l.bound(c0))
	if err != nil {
		return nil, err
	}
	l.node = node
	if floor > 0 {
		l.floor = time.Unix(0, floor)
	}
	l.extend(t0, c0)
	go l.renewLoop()
	return l, nil
}

// bound is the high-water mark recorded by a request started when the
// clock read c0: no ID issued under it can have a later time.
func (l *Lease) bound(c0 time.Time) int64 {
	return c0.Add(l.o.TTL + l.o.BorrowAhead + l.o.Layout.Unit()).UnixNano()
}

func (l *Lease) extend(t0 time.Duration, c0 time.Time) {
	keep := l.o.TTL - l.o.Margin
	l.deadline.Store(int64(t0 + keep))
	l.limit.Store(c0.Add(keep).UnixNano())
}

func (l *Lease) renewLoop() {
	defer close(l.done)
	wait := l.o.RenewEvery
	for {
		timer := time.NewTimer(wait)
		select {
		case <-l.stop:
			timer.Stop()
			return
		case <-timer.C:
		}
		t0, c0 := time.Since(l.base), l.o.Clock.Now()
		// A request still running at the deadline cannot help any more.
		ctx, cancel := context.WithTimeout(context.Background(), max(time.Duration(l.deadline.Load())-t0, l.o.RenewEvery))
		err := l.b.renew(ctx, l.node, l.o.Owner, l.o.TTL, l.bound(c0))
		cancel()
		switch {
		case err == nil:
			l.extend(t0, c0)
			l.lastErr.Store(nil)
			wait = l.o.RenewEvery
		case errors.Is(err, ErrLeaseLost):
			l.failed.CompareAndSwap(nil, &err)
			return
		default:
			l.lastErr.Store(&err)
			wait = max(l.o.RenewEvery/4, 10*time.Millisecond)
		}
	}
}

// Node returns the leased node ID. It is safe for concurrent use.
func (l *Lease) Node() int64 { return l.node }

// Owner returns the owner string recorded with the lease.
func (l *Lease) Owner() string { return l.o.Owner }

// Options returns the lease's options with defaults filled in.
func (l *Lease) Options() LeaseOptions { return l.o }

// NotBefore returns the high-water mark recorded by earlier holders of the
// node ID when this lease claimed it (the zero time if none): a generator
// using the ID must issue only IDs with later times. See
// [generator.WithNotBefore].
func (l *Lease) NotBefore() time.Time { return l.floor }

// Fence returns nil while the lease can be trusted, and otherwise an error:
// wrapping [ErrLeaseClosed] after Close, [ErrLeaseLost] once another holder
// took the ID, or [ErrLeaseExpired] when the last successful renewal is too
// old (its start + TTL - Margin has passed on the monotonic clock, or the
// generator clock has passed its reading then + TTL - Margin). It is cheap
// (one monotonic and one Clock reading) and safe for concurrent use; pass it
// to [generator.WithFence], or use [NewSnowflake], which does.
func (l *Lease) Fence() error {
	if e := l.failed.Load(); e != nil {
		return *e
	}
	if time.Since(l.base) >= time.Duration(l.deadline.Load()) {
		return l.expired("not renewed in time")
	}
	if l.o.Clock.Now().UnixNano() >= l.limit.Load() {
		return l.expired("clock passed the renewed limit")
	}
	return nil
}

func (l *Lease) expired(why string) error {
	if e := l.lastErr.Load(); e != nil {
		return fmt.Errorf("%w: node %d %s: %w", ErrLeaseExpired, l.node, why, *e)
	}
	return fmt.Errorf("%w: node %d %s", ErrLeaseExpired, l.node, why)
}

// Track sets the function Close calls for the exact high-water mark to
// record, normally a generator's LastTime ([generator.Snowflake.LastTime]).
// Without it Close keeps the last recorded upper bound. [NewSnowflake]
// calls Track. It is safe for concurrent use.
func (l *Lease) Track(lastTime func() time.Time) { l.track.Store(&lastTime) }

// Close stops issuing (Fence fails with [ErrLeaseClosed] from now on),
// stops renewal, records the high-water mark and releases the node ID so
// another process can claim it at once. Callers should stop calling the
// generator's Next before Close. It returns the release error, if any (the
// lease then simply expires after its TTL); later calls return the same
// result. It is safe for concurrent use.
func (l *Lease) Close(ctx context.Context) error {
	l.closeOnce.Do(func() {
		closed := fmt.Errorf("%w: node %d", ErrLeaseClosed, l.node)
		lost := l.failed.Swap(&closed)
		close(l.stop)
		<-l.done
		if lost != nil {
			l.closeErr = nil // nothing to release: someone else holds it
			return
		}
		var hwm int64
		exact := false
		if f := l.track.Load(); f != nil {
			// An ID issued concurrently with Close read the clock no later
			// than now, so its time is at most now + borrow-ahead.
			last := (*f)()
			if c := l.o.Clock.Now().Add(l.o.BorrowAhead); c.After(last) {
				last = c
			}
			if l.floor.After(last) {
				last = l.floor
			}
			hwm, exact = last.UnixNano(), true
		}
		l.closeErr = l.b.release(ctx, l.node, l.o.Owner, hwm, exact)
	})
	return l.closeErr
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

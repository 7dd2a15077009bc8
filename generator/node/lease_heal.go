package node

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// run is the lease's background goroutine: it renews every RenewEvery
// (sooner after a failure) and heals a lost lease, until Close.
func (l *Lease) run() {
	defer close(l.done)
	wait := l.o.RenewEvery
	for l.sleep(wait) {
		var ok bool
		if wait, ok = l.renew(); !ok {
			return
		}
	}
}

// sleep waits d, reporting false if the lease was closed first.
func (l *Lease) sleep(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-l.ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// retryEvery is the wait before the next renewal after a failed one.
func (l *Lease) retryEvery() time.Duration { return max(l.o.RenewEvery/4, 10*time.Millisecond) }

// renew renews the lease once and returns the wait before the next
// renewal, healing first if the node was lost; false ends the goroutine.
func (l *Lease) renew() (time.Duration, bool) {
	t0, c0 := time.Since(l.base), l.clock().Now()
	deadline := time.Duration(l.deadline.Load())
	if t0 >= deadline {
		l.fenced() // the goroutine itself was late (a pause, a stall)
	}
	node := l.node.Load()
	// A request still running at the deadline cannot keep the fence open;
	// once the lease lapsed, one answered within TTL - Margin still opens
	// it (trusted from t0), and a new connection on a busy machine may
	// take longer than RenewEvery.
	timeout := max(deadline-t0, l.o.RenewEvery)
	if t0 >= deadline {
		timeout = l.o.TTL - l.o.Margin
	}
	ctx, cancel := context.WithTimeout(l.ctx, timeout)
	err := l.renewOnce(ctx, node, c0)
	cancel()
	switch {
	case l.ctx.Err() != nil: // closed
		return 0, false
	case err == nil:
		l.extend(t0, c0)
		l.lastErr.Store(nil)
		l.renewed(c0)
		return l.o.RenewEvery, true
	case errors.Is(err, ErrLeaseLost), errors.Is(err, ErrForgot):
		// A store that forgot writes, or a lapsed lease whose store cannot
		// prove nobody wrote its record meanwhile, cannot tell who else
		// issued on the node: the heal's claim waits the horizon.
		forgot := errors.Is(err, ErrForgot)
		lapsed := errors.Is(err, ErrLapsed)
		lost := l.lose(err)
		if lost == nil || !l.heal(node, lost, forgot, lapsed) {
			return 0, false
		}
		return l.o.RenewEvery, true
	default:
		l.lastErr.Store(&err)
		l.failing("lease renewals failing", err)
		if time.Since(l.base) >= time.Duration(l.deadline.Load()) {
			l.fenced()
		}
		return l.retryEvery(), true
	}
}

// lose fences the lease for good, or until a heal, and returns the error
// Fence now returns; nil if the lease was closed meanwhile.
func (l *Lease) lose(err error) *error {
	lost := &err
	if !l.failed.CompareAndSwap(nil, lost) {
		return nil
	}
	l.endFast()
	if LeaseState(l.st.state.Swap(int32(LeaseLost))) != LeaseExpired {
		l.st.fences.Add(1)
	}
	l.st.streak = false
	l.logf(slog.LevelWarn, "lease lost", "node", l.node.Load(), "error", err)
	return lost
}

// heal claims a node again after old was lost (Fence returning *lost),
// retrying every RenewEvery until it holds one or the lease is closed
// (false). Without a generator from NewSnowflake to move, it does not
// try: another program's generator on the old node would repeat IDs.
//
// forgot and lapsed are passed to the claims (see Lease.claim); forgot
// holds until one succeeds, as the store may not have recorded the loss.
func (l *Lease) heal(old int64, lost *error, forgot, lapsed bool) bool {
	l.genMu.Lock()
	n := len(l.gens) + l.waiting
	if n == 0 {
		l.gone = true
	}
	l.genMu.Unlock()
	if n == 0 {
		l.logf(slog.LevelError, "lease lost for good: no generator from node.NewSnowflake to move to a new node", "node", old)
		return false
	}
	for attempt := 0; ; attempt++ {
		if attempt > 0 && !l.sleep(l.o.RenewEvery) {
			return false
		}
		t0, c0 := time.Since(l.base), l.clock().Now()
		// A claim answered after TTL - Margin could not be trusted.
		ctx, cancel := context.WithTimeout(l.ctx, l.o.TTL-l.o.Margin)
		node, floor, err := l.claim(ctx, old, c0, forgot, lapsed)
		cancel()
		switch {
		case l.ctx.Err() != nil:
			if err == nil {
				l.releaseUnused(node, floor)
			}
			return false
		case err != nil:
			l.failing("lease re-claim failing", err)
			continue
		}
		switch l.adopt(old, node, max(floor, 0), t0, c0, lost) {
		case adopted:
			return true
		case adoptClosed:
			return false
		}
	}
}

type adoptResult int

const (
	adopted adoptResult = iota
	adoptRetry
	adoptClosed
)

// adopt moves the generators to node, claimed at t0 (monotonic) and c0
// (clock) with the given floor, and opens the fence. It first waits for
// the clock to pass the floor (renewing the new claim meanwhile), as
// NewSnowflake does at start, so that Next neither waits nor fails for a
// floor a previous holder's clock set ahead of this one's.
func (l *Lease) adopt(old, node, floor int64, t0 time.Duration, c0 time.Time, lost *error) adoptResult {
	fl := time.Time{}
	if floor > 0 {
		fl = time.Unix(0, floor)
	}
	tried := t0 // the last request, at most one per RenewEvery
	for fl.After(l.clock().Now()) || fl.Equal(l.clock().Now()) {
		if l.ctx.Err() != nil {
			l.releaseUnused(node, floor)
			return adoptClosed
		}
		l.clock().Sleep(min(fl.Sub(l.clock().Now())+l.set.Unit, 50*time.Millisecond))
		if time.Since(l.base)-tried < l.o.RenewEvery {
			continue
		}
		t1, c1 := time.Since(l.base), l.clock().Now()
		tried = t1
		ctx, cancel := context.WithTimeout(l.ctx, l.o.RenewEvery)
		err := l.renewOnce(ctx, node, c1)
		cancel()
		switch {
		case err == nil:
			t0, c0 = t1, c1
		case errors.Is(err, ErrLeaseLost), errors.Is(err, ErrForgot):
			l.logf(slog.LevelWarn, "lease re-claim lost while waiting for its floor", "node", node, "error", err)
			return adoptRetry
		}
	}
	// The uniqueness argument is in package generator (snowflake_rebind.go):
	// the generators move while the fence is closed, then the fence opens.
	l.genMu.Lock()
	defer l.genMu.Unlock()
	for _, g := range l.gens {
		if err := g.Rebind(node, fl); err != nil {
			l.logf(slog.LevelError, "lease re-claim: cannot move the generator", "node", node, "error", err)
			l.releaseUnused(node, floor)
			return adoptRetry
		}
	}
	l.node.Store(node)
	l.floor.Store(floor)
	l.trust(t0, c0)
	l.lastErr.Store(nil)
	// Counted before the fence opens, so that a caller who sees Reclaims
	// unchanged after an ID returned knows the ID was issued before the
	// move.
	l.st.reclaims.Add(1)
	if !l.failed.CompareAndSwap(lost, nil) { // closed meanwhile
		l.st.reclaims.Add(^uint64(0))
		l.releaseUnused(node, floor)
		return adoptClosed
	}
	l.openFast(t0, c0)
	l.st.lastOK.Store(c0.UnixNano())
	l.st.state.Store(int32(LeaseHeld))
	l.st.streak = false
	l.logf(slog.LevelInfo, "lease re-claimed", "old_node", old, "node", node, "floor", l.notBefore())
	return adopted
}

// releaseUnused frees node, claimed by a heal that did not open the fence
// (so no ID was issued on it), recording the later of its floor and the
// clock as its mark.
func (l *Lease) releaseUnused(node, floor int64) {
	ctx, cancel := context.WithTimeout(context.Background(), l.closeTimeout()/2)
	defer cancel()
	_ = l.b.Release(ctx, Release{Node: node, Owner: l.o.Owner, Mark: max(floor, l.clock().Now().UnixNano()), Exact: true})
}

// renewed records a successful renewal started when the clock read c0.
func (l *Lease) renewed(c0 time.Time) {
	l.st.renewals.Add(1)
	l.st.lastOK.Store(c0.UnixNano())
	if prev := LeaseState(l.st.state.Swap(int32(LeaseHeld))); prev != LeaseHeld {
		l.logf(slog.LevelInfo, "lease renewed again", "node", l.node.Load(), "after", prev.String())
	}
	l.st.streak = false
}

// failing records a failed renewal or claim, logging the first of a streak.
func (l *Lease) failing(msg string, err error) {
	l.st.failures.Add(1)
	l.st.state.CompareAndSwap(int32(LeaseHeld), int32(LeaseFailing))
	if !l.st.streak {
		l.st.streak = true
		l.logf(slog.LevelWarn, msg, "node", l.node.Load(), "error", err)
	}
}

// fenced records that the lease lapsed: renewals did not succeed in time.
func (l *Lease) fenced() {
	for {
		s := l.st.state.Load()
		if s != int32(LeaseHeld) && s != int32(LeaseFailing) {
			return
		}
		if l.st.state.CompareAndSwap(s, int32(LeaseExpired)) {
			break
		}
	}
	l.st.fences.Add(1)
	l.logf(slog.LevelWarn, "lease fenced: not renewed in time", "node", l.node.Load(), "ttl", l.o.TTL, "margin", l.o.Margin)
}

// logf logs msg at level with args, if the lease has a logger.
func (l *Lease) logf(level slog.Level, msg string, args ...any) {
	if l.log != nil {
		l.log.Log(context.Background(), level, msg, args...)
	}
}

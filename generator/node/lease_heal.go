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

// attempt is how long a trusted lease's renewal may take before it is
// abandoned (a request sent into a cut link may never be answered) and
// retried at once (a refused one retryEvery later): RenewEvery/2, but at
// least 1 s or RenewEvery, for a busy machine. So with RenewEvery of 2 s
// or more (the default is 4 s) a request starts within RenewEvery/2 of the
// store's return, and with a round trip of at most RenewEvery/2 it
// succeeds within RenewEvery of the outage's end, which
// LeaseOptions.MaxOutage counts on. With a shorter RenewEvery the request
// may start up to RenewEvery after the return.
func (l *Lease) attempt() time.Duration {
	return max(l.o.RenewEvery/2, min(l.o.RenewEvery, time.Second))
}

// slowAttempt is how long a lapsed lease's renewal, or a claim, may take:
// one answered within TTL - Margin can still be trusted, and a new
// connection on a busy machine may take longer than attempt; but no
// longer than 2 RenewEvery (at least 1 s), so that a request into a cut
// link is retried while the outage lasts.
func (l *Lease) slowAttempt() time.Duration {
	return min(l.o.TTL-l.o.Margin, max(2*l.o.RenewEvery, time.Second))
}

// renew renews the lease once and returns the wait before the next
// renewal, healing first if the node was lost; false ends the goroutine.
func (l *Lease) renew() (time.Duration, bool) {
	t0, c0 := time.Since(l.base), l.clock().Now()
	deadline := time.Duration(l.deadline.Load())
	if t0 >= deadline {
		l.fenced() // the goroutine itself was late (a pause, a stall)
	}
	node := l.node.Load()
	// A trusted lease's renewal is abandoned after attempt and retried, so
	// that one sent into a cut link does not outlast the outage; once the
	// lease lapsed, one answered within slowAttempt still opens it
	// (trusted from t0).
	timeout := l.attempt()
	if t0 >= deadline {
		timeout = l.slowAttempt()
	}
	ctx, cancel := context.WithTimeout(l.ctx, timeout)
	err := l.renewOnce(ctx, node, c0)
	abandoned := ctx.Err() != nil // the wait is spent: retry at once
	cancel()
	// Another owner's record, answered while this lease was trusted: the
	// store gives a node to another owner only after its record expired,
	// which is after the deadline, so it lost this lease's writes.
	taken := errors.Is(err, ErrLeaseLost) && !errors.Is(err, ErrLapsed) && time.Since(l.base) < deadline
	var held *claimed
	switch {
	case l.ctx.Err() != nil: // closed
		return 0, false
	case err == nil:
		l.extend(t0, c0)
		l.lastErr.Store(nil)
		l.renewed(c0)
		return l.o.RenewEvery, true
	case errors.Is(err, ErrForgot) && !errors.Is(err, ErrLeaseLost) && t0 < deadline:
		// Still trusted: a store that kept this lease's record keeps the
		// lease on it with no pause (docs/leases.md, "Failover without a
		// pause"); otherwise held is what the claim took, for the heal.
		var kept bool
		if kept, held = l.keep(node, err); kept {
			return l.o.RenewEvery, true
		}
		if l.ctx.Err() != nil {
			if held != nil {
				l.releaseUnused(held.node, held.floor)
			}
			return 0, false
		}
		fallthrough
	case errors.Is(err, ErrLeaseLost), errors.Is(err, ErrForgot):
		// A store that forgot writes, or a lapsed lease whose store cannot
		// prove nobody wrote its record meanwhile, cannot tell who else
		// issued on the node: the heal's claim waits the horizon. A node
		// taken while the lease was trusted is such a store, too: holders
		// it forgot may issue on any node it shows free.
		forgot := errors.Is(err, ErrForgot) || taken
		lapsed := errors.Is(err, ErrLapsed)
		lost := l.lose(err)
		if lost == nil {
			if held != nil {
				l.releaseUnused(held.node, held.floor)
			}
			return 0, false
		}
		if !l.heal(node, held, lost, forgot, lapsed) {
			return 0, false
		}
		return l.o.RenewEvery, true
	default:
		l.lastErr.Store(&err)
		l.failing("lease renewals failing", err)
		if time.Since(l.base) >= time.Duration(l.deadline.Load()) {
			l.fenced()
		}
		if abandoned {
			return time.Millisecond, true
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

// claimed is a claim a heal may adopt: the node, its floor, and the
// monotonic and clock readings when the claim started.
type claimed struct {
	node, floor int64
	t0          time.Duration
	c0          time.Time
}

// keep runs after a renewal of node found that the store forgot writes
// (err), while the lease is still trusted: it claims node again as a
// claim after a loss, retrying failed claims retryEvery apart until the
// deadline. If the store gives node back with its record as the lease
// last saw it ([Claimed].Kept) and answers before the deadline, the lease
// keeps node and its generator's sequence, trusted from the claim's start
// (true). Otherwise it returns the claim that took a node for the lease,
// if one did, for the heal.
//
// A failed claim other than [ErrExhausted] may have been applied
// unanswered, after another owner's claim and release of node: the
// record then names the lease at a version past l.seen, as after one of
// its own renewals. So once one failed, Kept is not taken.
func (l *Lease) keep(node int64, err error) (bool, *claimed) {
	unsure := false // a claim since l.seen may have been applied unanswered
	for {
		t1, c1 := time.Since(l.base), l.clock().Now()
		deadline := time.Duration(l.deadline.Load())
		if t1 >= deadline || l.ctx.Err() != nil {
			return false, nil
		}
		ctx, cancel := context.WithTimeout(l.ctx, deadline-t1)
		r, cerr := l.b.Claim(ctx, Claim{
			Owner: l.o.Owner, TTL: l.o.TTL, MaxNode: l.set.MaxNode, Prefer: node,
			Bound: l.bound(c1), Horizon: l.horizon(), Lost: true, Seen: l.seen, Log: l.warnLog(),
		})
		cancel()
		if cerr != nil {
			unsure = unsure || !errors.Is(cerr, ErrExhausted)
			l.failing("lease renewal found the store forgot writes; its claim to keep the node is failing", cerr)
			if !l.sleep(l.retryEvery()) {
				return false, nil
			}
			continue
		}
		l.seen = r.Seen
		if r.Node == node && r.Kept && !unsure && time.Since(l.base) < deadline {
			l.extend(t1, c1)
			l.lastErr.Store(nil)
			l.renewed(c1)
			l.logf(slog.LevelInfo, "lease kept: the store forgot writes but kept this lease's record", "node", node, "error", err)
			return true, nil
		}
		return false, &claimed{node: r.Node, floor: max(r.Floor, 0), t0: t1, c0: c1}
	}
}

// heal claims a node again after old was lost (Fence returning *lost),
// retrying every RenewEvery until it holds one or the lease is closed
// (false). held, if not nil, is a claim already made for the lease, which
// it adopts first. Without a generator from NewSnowflake to move, it does
// not try: another program's generator on the old node would repeat IDs.
//
// forgot and lapsed are passed to the claims (see Lease.claim); forgot
// holds until one succeeds, as the store may not have recorded the loss.
func (l *Lease) heal(old int64, held *claimed, lost *error, forgot, lapsed bool) bool {
	l.genMu.Lock()
	n := len(l.gens) + l.waiting
	if n == 0 {
		l.gone = true
	}
	l.genMu.Unlock()
	if n == 0 {
		if held != nil {
			l.releaseUnused(held.node, held.floor)
		}
		l.logf(slog.LevelError, "lease lost for good: no generator from node.NewSnowflake to move to a new node", "node", old)
		return false
	}
	for attempt := 0; ; attempt++ {
		if held != nil {
			r := held
			held = nil
			switch l.adopt(old, r.node, r.floor, r.t0, r.c0, lost) {
			case adopted:
				return true
			case adoptClosed:
				return false
			}
			continue
		}
		if attempt > 0 && !l.sleep(l.o.RenewEvery) {
			return false
		}
		t0, c0 := time.Since(l.base), l.clock().Now()
		// A claim answered after TTL - Margin could not be trusted.
		ctx, cancel := context.WithTimeout(l.ctx, l.slowAttempt())
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
	tried := t0                // the last request, at most one per RenewEvery
	past := fl.Add(l.set.Unit) // the clock is then in a tick after the floor's
	for now := l.clock().Now(); now.Before(past); now = l.clock().Now() {
		if l.ctx.Err() != nil {
			l.releaseUnused(node, floor)
			return adoptClosed
		}
		l.clock().Sleep(min(past.Sub(now), 50*time.Millisecond))
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

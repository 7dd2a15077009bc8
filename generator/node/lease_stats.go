package node

import (
	"sync/atomic"
	"time"
)

// LeaseState is where a [Lease] stands; see [LeaseStats].
type LeaseState int32

// The states of a lease. Fence passes in LeaseHeld and LeaseFailing.
const (
	// LeaseHeld: the last renewal or claim succeeded.
	LeaseHeld LeaseState = iota
	// LeaseFailing: renewals are failing; the lease is still trusted.
	LeaseFailing
	// LeaseExpired: renewals did not succeed in time.
	LeaseExpired
	// LeaseLost: another holder took the node; the lease claims again.
	LeaseLost
	// LeaseClosed: Close was called.
	LeaseClosed
)

// String returns "held", "failing", "expired", "lost" or "closed".
func (s LeaseState) String() string {
	switch s {
	case LeaseHeld:
		return "held"
	case LeaseFailing:
		return "failing"
	case LeaseExpired:
		return "expired"
	case LeaseLost:
		return "lost"
	case LeaseClosed:
		return "closed"
	}
	return "unknown"
}

// LeaseStats is a point-in-time view of a [Lease]; see [Lease.Stats].
type LeaseStats struct {
	// Node is the node ID held, or held last while the lease heals.
	Node int64
	// Owner is the owner string recorded with the lease.
	Owner string
	// State is where the lease stands.
	State LeaseState
	// LastRenewal is the clock when the last successful renewal started.
	LastRenewal time.Time
	// FenceIn is how long Fence passes without another renewal.
	FenceIn time.Duration
	// Renewals counts successful renewals; Failures failed renewals and
	// failed claims while healing.
	Renewals, Failures uint64
	// Fences counts expiries and losses; Reclaims heals on a new claim.
	Fences, Reclaims uint64
}

// leaseCounters are a lease's statistics. Only the lease's goroutine
// writes them, except state, which Close sets too.
type leaseCounters struct {
	state                                atomic.Int32
	lastOK                               atomic.Int64 // Unix ns
	renewals, failures, fences, reclaims atomic.Uint64
	streak                               bool // a failing streak has been logged; the goroutine's own
}

// Stats returns the lease's state and counts, without contacting the store.
func (l *Lease) Stats() LeaseStats {
	s := LeaseStats{
		Node:        l.node.Load(),
		Owner:       l.o.Owner,
		State:       LeaseState(l.st.state.Load()),
		LastRenewal: time.Unix(0, l.st.lastOK.Load()),
		Renewals:    l.st.renewals.Load(),
		Failures:    l.st.failures.Load(),
		Fences:      l.st.fences.Load(),
		Reclaims:    l.st.reclaims.Load(),
	}
	if l.check() == nil {
		left := time.Duration(l.deadline.Load()) - time.Since(l.base)
		byClock := time.Duration(l.limit.Load() - l.clock().Now().UnixNano())
		s.FenceIn = max(min(left, byClock), 0)
	} else if s.State == LeaseHeld || s.State == LeaseFailing {
		s.State = LeaseExpired // the goroutine has not noticed yet
	}
	return s
}

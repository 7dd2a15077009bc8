package generator

import "sync/atomic"

// SnowflakeStats is a point-in-time count of what a [Snowflake] generator
// has done since it was made; see [Snowflake.Stats].
type SnowflakeStats struct {
	// Node is the node the generator issues on now.
	Node int64
	// Issued is the number of IDs issued.
	Issued uint64
	// TickWaits counts the sleeps Next made for a later tick, after a
	// tick's sequence ran out (and borrowing, if allowed, reached its
	// bound) or while the clock read behind the last issued tick.
	TickWaits uint64
	// BorrowedTicks counts the ticks opened ahead of the clock reading
	// ([WithBorrowAhead]).
	BorrowedTicks uint64
	// ClockBehind counts the Next calls that read the exact clock behind
	// the last issued tick by more than the borrow-ahead allowance: the
	// clock stepped back, or a floor ([WithNotBefore]) is ahead of it.
	// Within the backward tolerance such a call issues or waits; beyond it,
	// it fails with [ErrClockMovedBackwards]. Small steps back that Next
	// absorbed on its coarse-clock fast path are not counted.
	ClockBehind uint64
	// Fenced counts the fence's refusals: checks before an ID is made and
	// after, each refusal counted once.
	Fenced uint64
}

// counters are the generator's statistics, kept on the paths that are rare
// per ID (a new tick, a wait, a refusal) so that Next's common path pays
// nothing for them: IDs issued are derived from how far the state moved.
type counters struct {
	skipped     atomic.Int64 // state values passed over: the rest of a tick, a dropped block, a move's raise
	discarded   atomic.Int64 // state values taken but not issued: refused by the fence, below a move's floor
	waits       atomic.Uint64
	borrowed    atomic.Uint64
	clockBehind atomic.Uint64
	fenced      atomic.Uint64
}

// opened counts a reservation from state old of the values next to end,
// which reaches a new tick (now is the clock's tick as read): the values
// passed over from old to next, and the ticks opened ahead of now.
func (g *Snowflake) opened(old, next, end, now int64) {
	if d := next - old - 1; d > 0 {
		g.stats.skipped.Add(d)
	}
	if n := end>>g.seqBits - max(old>>g.seqBits, now); n > 0 {
		g.stats.borrowed.Add(uint64(n))
	}
}

// Stats returns the generator's counts. It is safe for concurrent use and
// costs Next nothing: Issued is derived from the state's advance, less the
// values passed over (the rest of a tick when a new one starts) and those
// taken but not issued.
//
// While no Next call is running the counts are exact. During calls, Issued
// also counts values taken by calls that have not returned yet (and may
// still be refused by the fence). With [WithPerCPUBlocks] it counts the
// values each P holds in its block as issued from when the P reserves them
// until the P drops them unused.
func (g *Snowflake) Stats() SnowflakeStats {
	st := &g.stats
	// Load the counters of values not issued before the state, so that a
	// value counted there is always counted in the state's advance too.
	skipped, discarded := st.skipped.Load(), st.discarded.Load()
	issued := g.last.Load() - g.start - skipped - discarded
	return SnowflakeStats{
		Node:          g.bind.Load().node,
		Issued:        uint64(max(issued, 0)),
		TickWaits:     st.waits.Load(),
		BorrowedTicks: st.borrowed.Load(),
		ClockBehind:   st.clockBehind.Load(),
		Fenced:        st.fenced.Load(),
	}
}

package generator

import "sync/atomic"

// SnowflakeStats counts what a [Snowflake] generator has done since it was
// made; see [Snowflake.Stats].
type SnowflakeStats struct {
	Node int64 // the node the generator issues on now
	// Issued counts IDs issued, by this generator and by those that share
	// its sequence (see [NewSnowflake]).
	Issued uint64
	// TickWaits counts sleeps for a later tick; BorrowedTicks the ticks
	// opened ahead of the clock ([WithBorrowAhead]).
	TickWaits, BorrowedTicks uint64
	// ClockBehind counts the Next calls that read the clock behind the last
	// issued tick by more than the borrow-ahead allowance.
	ClockBehind uint64
	// Fenced counts a leased generator's refusals ([ErrFenced]).
	Fenced uint64
}

// counters are the generator's statistics, kept on the paths that are rare
// per ID (a new tick, a wait, a refusal) so that Next's common path pays
// nothing for them: IDs issued are derived from how far the state moved.
type counters struct {
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
		g.seq.skipped.Add(d)
	}
	if n := end>>g.seqBits - max(old>>g.seqBits, now); n > 0 {
		g.stats.borrowed.Add(uint64(n))
	}
}

// Stats returns the generator's counts, exact while no Next call runs. It
// costs Next nothing. With [WithPerCPUBlocks], values a P holds in its
// block count as issued.
func (g *Snowflake) Stats() SnowflakeStats {
	st := &g.stats
	// Load the counters of values not issued before the state, so that a
	// value counted there is always counted in the state's advance too.
	skipped, discarded := g.seq.skipped.Load(), g.seq.discarded.Load()
	issued := g.seq.last.Load() - g.seq.start.Load() - skipped - discarded
	return SnowflakeStats{
		Node:          g.bind.Load().node,
		Issued:        uint64(max(issued, 0)),
		TickWaits:     st.waits.Load(),
		BorrowedTicks: st.borrowed.Load(),
		ClockBehind:   st.clockBehind.Load(),
		Fenced:        st.fenced.Load(),
	}
}

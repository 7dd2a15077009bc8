package generator

import (
	"fmt"
	"time"

	"github.com/idkit-go/idkit/internal/procpin"
	"github.com/idkit-go/idkit/types"
)

// A fenced Snowflake generator can be moved to another node while it runs,
// which package node does when a lease heals on a new claim (through
// wiring.Lease, so that no user can move a generator by mistake).
//
// Why no ID repeats across a move. Every state value is taken by exactly one
// successful compare-and-swap of g.last (or, with per-CPU blocks, once from
// a block so taken), so this generator composes each value at most once,
// on whatever node it then binds. The move to node N with floor F (the
// coordinator's high-water mark for N: no holder of N ever issued a time
// at or after it) happens while the fence refuses every ID and goes:
//
//  1. raise g.last to at least F's tick with a full sequence, so every
//     value taken from now on is above F;
//  2. publish the binding {N, F's state value};
//  3. the caller opens the fence.
//
// issueFenced checks the fence, then loads the binding and composes the
// value with the binding's node only if the value is above the binding's
// floor. A value taken before step 1 and issued after step 3 (its
// goroutine stalled between the two, or it sat in a P's block) is either
// above the floor, so later than any ID an earlier holder of N made, or it
// is discarded and a fresh value taken. An ID composed with the old node
// passed a fence check made while the old lease was still trusted, which
// is the guarantee every fenced ID has (see WithFence). Generators without
// a fence are never moved and compose with nodePart directly.

// binding is the node a fenced generator issues on and the highest state
// value it must not issue there. It is immutable; a move publishes a new one.
type binding struct {
	node     int64
	nodePart int64
	floor    int64
}

// rebind moves g to node, never issuing there at or before floor. The
// caller holds node and keeps g's fence closed until rebind returns.
func (g *Snowflake) rebind(node int64, floor time.Time) error {
	switch {
	case g.fence == nil:
		return fmt.Errorf("%w: only a fenced generator can move to another node", ErrInvalidConfig)
	case node < 0 || node > g.layout.MaxNode():
		return fmt.Errorf("%w: node %d not in [0, %d] of %s", ErrNodeOutOfRange, node, g.layout.MaxNode(), g.layout.name)
	}
	fs := int64(0) // the zero state value counts as issued anyway
	if !floor.IsZero() && !floor.Before(g.layout.epoch) {
		tick, err := g.layout.tickOf(floor)
		if err != nil {
			return err
		}
		fs = tick<<g.seqBits | g.seqMask
	}
	for {
		old := g.seq.last.Load()
		if old >= fs {
			break
		}
		if g.seq.last.CompareAndSwap(old, fs) {
			g.seq.skipped.Add(fs - old)
			break
		}
	}
	g.bind.Store(&binding{node: node, nodePart: node << g.nodeShift, floor: fs})
	return nil
}

// issueSlow is issueFenced when the fence refused (err) or v is not above
// the binding's floor: a refusal discards v; a value not above the floor
// of the binding is discarded and a fresh one taken and checked the same
// way (see above).
func (g *Snowflake) issueSlow(v int64, err error) (types.Snowflake, error) {
	for {
		if err != nil {
			g.stats.fenced.Add(1)
			g.seq.discarded.Add(1)
			return 0, fmt.Errorf("%w: %w", ErrFenced, err)
		}
		b := g.bind.Load()
		if v > b.floor {
			return g.composeOn(v, b.nodePart), nil
		}
		// v was taken before a move and sits at or below the new node's
		// floor: drop it, and the calling P's block it likely came from.
		g.seq.discarded.Add(1)
		if g.ranges != nil {
			p := procpin.Pin()
			g.dropBlock(p)
			procpin.Unpin()
		}
		if v, _, err = g.reserve(1); err != nil {
			return 0, err
		}
		err = g.fence()
	}
}

// dropBlock empties P p's block, counting its unused values as skipped.
// The caller is pinned to p.
func (g *Snowflake) dropBlock(p int) {
	if next, end := g.ranges.Get(p); next < end {
		g.seq.skipped.Add(int64(end - next))
		g.ranges.Set(p, 0, 0)
	}
}

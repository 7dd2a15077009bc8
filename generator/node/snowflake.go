package node

import (
	"context"
	"fmt"
	"time"

	"github.com/idkit-go/idkit/generator"
)

// NewSnowflake returns a [generator.Snowflake] for the lease's node ID,
// wired to the lease, ready for any code that takes a generator (for example
// gormplugin.WithSnowflake):
//
//   - it uses the lease's Layout, Clock and BorrowAhead, which override any
//     [generator.WithLayout], [generator.WithClock] or
//     [generator.WithBorrowAhead] in opts (the lease's high-water marks are
//     computed from them);
//   - it is fenced by [Lease.Fence] in addition to any [generator.WithFence]
//     in opts: every fence is checked, the caller's first, before an ID is
//     made and again after, so an ID whose making stalled past the lease's
//     limits, as far as the clock Fence reads can tell, is discarded;
//   - its floor is the later of the lease's [Lease.NotBefore] and any
//     [generator.WithNotBefore] in opts: it never issues at or before
//     either;
//   - it is tracked ([Lease.Track]) so that [Lease.Close] records its exact
//     last issued time;
//   - when the lease heals on a new claim, the generator moves to the node
//     claimed by itself, before the fence opens again, and never issues
//     there at or before that node's recorded high-water mark (see the
//     package documentation).
//
// Every ID it returns has a time below the high-water mark the lease last
// recorded in its store, which a later holder of the node ID never issues
// at or below. Other options in opts (such as [generator.WithPerCPUBlocks])
// apply as given.
//
// If the lease's clock reads at or before the lease's floor (a previous
// holder's clock was ahead, or this one is behind), NewSnowflake waits on
// that clock until it passes the floor, or until ctx is done, when it
// returns an error wrapping ctx.Err(). A later floor from opts is not
// waited for here: Next waits or fails as [generator.WithNotBefore] says.
// Other errors are those of [generator.NewSnowflake]. Close the lease, not
// the generator, when done; one lease should serve one generator, since
// Close records the last time of the generator tracked last.
func NewSnowflake(ctx context.Context, l *Lease, opts ...generator.Option) (*generator.Snowflake, error) {
	o := l.o
	floor := l.NotBefore()
	for {
		now := o.Clock.Now()
		if now.After(floor) {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("node: waiting for the clock to pass the high-water mark %s: %w",
				floor.UTC().Format(time.RFC3339Nano), err)
		}
		o.Clock.Sleep(min(floor.Sub(now)+o.Layout.Unit(), 50*time.Millisecond))
	}
	// The node and floor are read, and the generator joins those a heal
	// moves, under genMu, so that a heal moves it too or happened before.
	// If a heal changed the floor since the wait above, WithNotBefore
	// makes Next wait or fail for it.
	l.genMu.Lock()
	defer l.genMu.Unlock()
	// WithFence and WithNotBefore combine with the caller's; the others
	// override them.
	all := append(opts[:len(opts):len(opts)],
		generator.WithLayout(o.Layout),
		generator.WithClock(o.Clock),
		generator.WithBorrowAhead(o.BorrowAhead),
		generator.WithNotBefore(l.NotBefore()),
		generator.WithFence(l.fence), // Fence, one call shallower
	)
	g, err := generator.NewSnowflake(l.Node(), all...)
	if err != nil {
		return nil, err
	}
	l.gens = append(l.gens, g)
	l.Track(g.LastTime)
	return g, nil
}

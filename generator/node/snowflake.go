package node

import (
	"context"
	"fmt"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/internal/optkind"
)

// NewSnowflake returns a [generator.Snowflake] for the lease's node ID,
// wired to the lease, ready for any code that takes a generator (for example
// gormplugin.WithSnowflake):
//
//   - it uses the lease's Layout, Clock and BorrowAhead, from which the
//     lease computes its high-water marks; to change them, set those
//     [LeaseOptions] fields. NewSnowflake refuses [generator.WithLayout],
//     [generator.WithClock] and [generator.WithBorrowAhead] in opts, even
//     with the lease's own values, with an error wrapping
//     [ErrInvalidConfig] that names the field to set instead;
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
func NewSnowflake(ctx context.Context, l *Lease, opts ...generator.SnowflakeOption) (*generator.Snowflake, error) {
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
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
		o.Clock.Sleep(min(floor.Sub(now)+o.Layout.Spec().Unit, 50*time.Millisecond))
	}
	// The node and floor are read, and the generator joins those a heal
	// moves, under genMu, so that a heal moves it too or happened before.
	// If a heal changed the floor since the wait above, WithNotBefore
	// makes Next wait or fail for it.
	l.genMu.Lock()
	defer l.genMu.Unlock()
	// WithFence and WithNotBefore combine with the caller's; the layout,
	// clock and borrow-ahead are the lease's alone (checkOptions).
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

// leaseOwned names, for each option kind the lease owns, the generator
// option and the [LeaseOptions] field that sets the same thing.
var leaseOwned = [...]struct{ option, field string }{
	optkind.Layout:      {"WithLayout", "Layout"},
	optkind.Clock:       {"WithClock", "Clock"},
	optkind.BorrowAhead: {"WithBorrowAhead", "BorrowAhead"},
}

// checkOptions refuses any option in opts that sets what the lease owns:
// the lease computes its high-water marks from its layout, clock and
// borrow-ahead, so the generator must use exactly those.
func checkOptions(opts []generator.SnowflakeOption) error {
	for i, opt := range opts {
		if k := optkind.Of(opt); k != optkind.Other {
			return fmt.Errorf("%w: option %d, generator.%s: a leased generator takes it from the lease; set LeaseOptions.%s instead",
				ErrInvalidConfig, i, leaseOwned[k].option, leaseOwned[k].field)
		}
	}
	return nil
}

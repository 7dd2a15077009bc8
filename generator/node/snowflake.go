package node

import (
	"context"
	"fmt"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/internal/hook"
)

// NewSnowflake returns a [generator.Snowflake] for the lease's node ID,
// wired to the lease, for any code that takes a generator (for example
// gormplugin.WithSnowflake). It is the only way to make a generator issue
// on a leased node:
//
//   - its layout, clock, borrow-ahead and per-CPU blocks are the lease's
//     [LeaseOptions]; it uses the default backward tolerance and sequence
//     start;
//   - Next fails with an error wrapping [generator.ErrFenced] and the
//     lease's error while [Lease.Fence] fails, checked before and after
//     each ID is made;
//   - it never issues an ID at or before the high-water mark that earlier
//     holders of the node recorded, and [Lease.Close] records its exact
//     last issued time;
//   - when the lease heals on a new claim, it moves to the new node before
//     the fence opens again.
//
// If the lease's clock reads at or before that high-water mark,
// NewSnowflake waits on the clock until it passes it, or until ctx is done,
// when it returns an error wrapping ctx.Err(). Other errors are those of
// [generator.NewSnowflake]. Close the lease, not the generator, when done;
// one lease serves one generator.
func NewSnowflake(ctx context.Context, l *Lease) (*generator.Snowflake, error) {
	o := l.o
	floor := l.notBefore()
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
	// If a heal changed the floor since the wait above, the floor makes
	// Next wait or fail for it.
	l.genMu.Lock()
	defer l.genMu.Unlock()
	g, err := generator.NewSnowflake(l.Node(),
		generator.WithLayout(o.Layout),
		generator.WithClock(o.Clock),
		generator.WithBorrowAhead(o.BorrowAhead),
		generator.WithPerCPUBlocks(o.PerCPUBlocks),
		hook.WithNotBefore(l.notBefore()).(generator.SnowflakeOption),
		hook.WithFence(l.fence).(generator.SnowflakeOption), // Fence, one call shallower
	)
	if err != nil {
		return nil, err
	}
	l.gens = append(l.gens, g)
	l.track(func() time.Time { return hook.LastTime(g) })
	return g, nil
}

package node

import (
	"context"
	"fmt"
	"time"

	"github.com/idkit-go/idkit/generator"
)

// Snowflake is a [generator.Snowflake] bound to a [Lease], made by
// [NewSnowflake]. Its methods are the embedded generator's, fenced by the
// lease: [generator.WithFence] checks the fence both before an ID is made and
// after, so an ID made while the lease was valid but returned after it
// lapsed (the process stalled in between, for example stopped or paused) is
// discarded. Every ID it returns was made before a moment at which the lease
// was verified valid. It is safe for concurrent use.
type Snowflake struct {
	*generator.Snowflake
	lease *Lease
}

// NewSnowflake returns a [Snowflake] generator for the lease's node ID,
// wired to the lease: it uses the lease's Layout, Clock and BorrowAhead
// (these override any [generator.WithLayout], [generator.WithClock] or
// [generator.WithBorrowAhead] in opts), is fenced by [Lease.Fence], never
// issues at or before the earlier holders' high-water mark
// ([generator.WithNotBefore]), and is tracked so that [Lease.Close]
// records its exact last issued time.
//
// If the clock reads at or before that mark (a previous holder's clock was
// ahead, or this one is behind), NewSnowflake waits on the lease's clock
// until it passes the mark, or until ctx is done, when it returns an error
// wrapping ctx.Err(). Other errors are those of [generator.NewSnowflake].
// Close the lease, not the generator, when done.
func NewSnowflake(ctx context.Context, l *Lease, opts ...generator.SnowflakeOption) (*Snowflake, error) {
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
	all := append(opts[:len(opts):len(opts)],
		generator.WithLayout(o.Layout),
		generator.WithClock(o.Clock),
		generator.WithBorrowAhead(o.BorrowAhead),
		generator.WithNotBefore(floor),
		generator.WithFence(l.Fence),
	)
	g, err := generator.NewSnowflake(l.Node(), all...)
	if err != nil {
		return nil, err
	}
	l.Track(g.LastTime)
	return &Snowflake{Snowflake: g, lease: l}, nil
}

// Lease returns the lease the generator is bound to.
func (s *Snowflake) Lease() *Lease { return s.lease }

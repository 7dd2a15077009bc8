package node_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/generator/node"
)

// TestNewSnowflakeRefusesLeaseOwnedOptions: the layout, clock and
// borrow-ahead come from the lease alone. An option setting one of them is
// refused, even with the lease's own value, naming the LeaseOptions field
// to set; the refusal leaves the lease serving as before.
func TestNewSnowflakeRefusesLeaseOwnedOptions(t *testing.T) {
	t.Parallel()
	for _, sm := range stores() {
		t.Run(sm.name, func(t *testing.T) {
			t.Parallel()
			s := sm.make(t)
			ctx := context.Background()
			l, err := s.lease(ctx, node.LeaseOptions{Layout: layout(t, 4), BorrowAhead: 2 * time.Millisecond})
			require.NoError(t, err)
			defer l.Close(ctx)
			lo := l.Options()

			for _, c := range []struct {
				name  string
				opts  []generator.SnowflakeOption
				field string // "" = accepted
			}{
				{"other layout", []generator.SnowflakeOption{generator.WithLayout(generator.Twitter())}, "Layout"},
				{"lease's layout", []generator.SnowflakeOption{generator.WithLayout(lo.Layout)}, "Layout"},
				{"zero layout", []generator.SnowflakeOption{generator.WithLayout(generator.Layout{})}, "Layout"},
				{"other clock", []generator.SnowflakeOption{generator.WithClock(generatortest.NewFakeClock(time.Now()))}, "Clock"},
				{"lease's clock", []generator.SnowflakeOption{generator.WithClock(lo.Clock)}, "Clock"},
				{"nil clock", []generator.SnowflakeOption{generator.WithClock(nil)}, "Clock"},
				{"other borrow-ahead", []generator.SnowflakeOption{generator.WithBorrowAhead(time.Hour)}, "BorrowAhead"},
				{"lease's borrow-ahead", []generator.SnowflakeOption{generator.WithBorrowAhead(lo.BorrowAhead)}, "BorrowAhead"},
				{"after accepted ones", []generator.SnowflakeOption{nil, generator.WithPerCPUBlocks(4), generator.WithBorrowAhead(0)}, "BorrowAhead"},
				{"accepted", []generator.SnowflakeOption{
					nil,
					generator.WithPerCPUBlocks(4),
					generator.WithBackwardTolerance(time.Millisecond),
					generator.WithRandomSequenceStart(),
					generator.WithFence(func() error { return nil }),
					generator.WithNotBefore(time.Unix(1, 0)),
				}, ""},
			} {
				g, err := node.NewSnowflake(ctx, l, c.opts...)
				if c.field == "" {
					require.NoError(t, err, c.name)
					id, err := g.Next()
					require.NoError(t, err, c.name)
					p, err := lo.Layout.Decompose(id)
					require.NoError(t, err, c.name)
					require.Equal(t, l.Node(), p.Node, c.name)
					continue
				}
				require.ErrorIs(t, err, node.ErrInvalidConfig, c.name)
				require.ErrorContains(t, err, "set LeaseOptions."+c.field+" instead", c.name)
				require.Nil(t, g, c.name)
			}

			// The lease still serves a generator with its own settings.
			g, err := node.NewSnowflake(ctx, l)
			require.NoError(t, err)
			require.Equal(t, lo.Layout, g.Layout())
			id, err := g.Next()
			require.NoError(t, err)
			p, err := lo.Layout.Decompose(id)
			require.NoError(t, err)
			require.Equal(t, l.Node(), p.Node)
		})
	}
}

// TestNewSnowflakeCombinesFenceAndFloor: the caller's fence and floor are
// kept beside the lease's, never replaced.
func TestNewSnowflakeCombinesFenceAndFloor(t *testing.T) {
	t.Parallel()
	for _, sm := range stores() {
		t.Run(sm.name, func(t *testing.T) {
			t.Parallel()
			s := sm.make(t)
			ctx := context.Background()
			l, err := s.lease(ctx, node.LeaseOptions{Layout: layout(t, 4)})
			require.NoError(t, err)
			defer l.Close(ctx)

			stop := errors.New("caller says stop")
			var closed bool
			floor := time.Now().Add(5 * time.Millisecond) // within the backward tolerance: Next waits
			g, err := node.NewSnowflake(ctx, l,
				generator.WithFence(func() error {
					if closed {
						return stop
					}
					return nil
				}),
				generator.WithNotBefore(floor),
			)
			require.NoError(t, err)

			id, err := g.Next()
			require.NoError(t, err)
			p, err := l.Options().Layout.Decompose(id)
			require.NoError(t, err)
			require.True(t, p.Time.After(floor.Truncate(time.Millisecond)), "first id %v not after the caller's floor %v", p.Time, floor)
			require.Equal(t, l.Node(), p.Node)

			closed = true
			_, err = g.Next()
			require.ErrorIs(t, err, generator.ErrFenced)
			require.ErrorIs(t, err, stop, "the caller's fence still applies")

			closed = false
			require.NoError(t, l.Close(ctx))
			_, err = g.Next()
			require.ErrorIs(t, err, node.ErrLeaseClosed, "the lease's fence applies too")
		})
	}
}

// TestNewSnowflakeLeaseFloorWins: a caller floor earlier than the lease's
// does not lower it.
func TestNewSnowflakeLeaseFloorWins(t *testing.T) {
	t.Parallel()
	for _, sm := range stores() {
		t.Run(sm.name, func(t *testing.T) {
			t.Parallel()
			s := sm.make(t)
			ctx := context.Background()
			o := node.LeaseOptions{Layout: layout(t, 1)}
			a, err := s.lease(ctx, o)
			require.NoError(t, err)
			other, err := s.lease(ctx, o) // holds the other node, so b gets a's
			require.NoError(t, err)
			defer other.Close(ctx)
			ga, err := node.NewSnowflake(ctx, a)
			require.NoError(t, err)
			var last generator.Parts
			for range 5000 {
				id, err := ga.Next()
				require.NoError(t, err)
				last, _ = o.Layout.Decompose(id)
			}
			require.NoError(t, a.Close(ctx))

			b, err := s.lease(ctx, o)
			require.NoError(t, err)
			defer b.Close(ctx)
			require.Equal(t, a.Node(), b.Node(), "the only free node")
			gb, err := node.NewSnowflake(ctx, b, generator.WithNotBefore(time.Unix(1, 0)))
			require.NoError(t, err)
			id, err := gb.Next()
			require.NoError(t, err)
			p, _ := o.Layout.Decompose(id)
			require.Greater(t, p.Tick, last.Tick)
		})
	}
}

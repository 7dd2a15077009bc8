package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/generator/node"
)

// TestNewSnowflakeTakesLeaseOptions: the generator's layout, clock,
// borrow-ahead and per-CPU blocks come from the lease's options.
func TestNewSnowflakeTakesLeaseOptions(t *testing.T) {
	t.Parallel()
	for _, sm := range stores() {
		t.Run(sm.name, func(t *testing.T) {
			t.Parallel()
			s := sm.make(t)
			ctx := context.Background()
			start := time.Now().Add(time.Hour) // ahead of any recorded mark
			clk := generatortest.NewFakeClock(start)
			l, err := s.lease(ctx, node.LeaseOptions{Layout: layout(t, 4), Clock: clk, BorrowAhead: 2 * time.Millisecond})
			require.NoError(t, err)
			defer l.Close(ctx)
			lo := l.Options()

			g, err := node.NewSnowflake(ctx, l)
			require.NoError(t, err)
			require.Equal(t, lo.Layout, g.Layout())
			id, err := g.Next()
			require.NoError(t, err)
			p, err := lo.Layout.Decompose(id)
			require.NoError(t, err)
			require.Equal(t, l.Node(), p.Node)
			require.Equal(t, start.UTC().Truncate(time.Millisecond), p.Time, "the lease's clock")

			// The sequences of the clock's tick and of the two ticks
			// borrowing allows are issued without waiting; the next ID waits.
			for range 3*(lo.Layout.MaxSequence()+1) - 1 {
				_, err := g.Next()
				require.NoError(t, err)
			}
			st := g.Stats()
			require.EqualValues(t, 2, st.BorrowedTicks, "the lease's borrow-ahead")
			require.Zero(t, st.TickWaits)
			_, err = g.Next()
			require.NoError(t, err)
			require.EqualValues(t, 1, g.Stats().TickWaits)

			// PerCPUBlocks: the first Next reserves a block of 4.
			l4, err := s.lease(ctx, node.LeaseOptions{Layout: layout(t, 4), PerCPUBlocks: 4})
			require.NoError(t, err)
			defer l4.Close(ctx)
			require.Equal(t, 4, l4.Options().PerCPUBlocks)
			g4, err := node.NewSnowflake(ctx, l4)
			require.NoError(t, err)
			_, err = g4.Next()
			require.NoError(t, err)
			require.EqualValues(t, 4, g4.Stats().Issued, "a P reserved a block of 4")
		})
	}
}

// TestNewSnowflakeRefusesBadPerCPUBlocks: PerCPUBlocks is checked when the
// lease is made, as generator.WithPerCPUBlocks is.
func TestNewSnowflakeRefusesBadPerCPUBlocks(t *testing.T) {
	t.Parallel()
	s := stores()[0].make(t)
	for _, n := range []int{-1, generator.MaxPerCPUBlock + 1} {
		_, err := s.lease(context.Background(), node.LeaseOptions{Layout: layout(t, 4), PerCPUBlocks: n})
		require.ErrorIs(t, err, node.ErrInvalidConfig, "PerCPUBlocks %d", n)
	}
}

// TestNewSnowflakeFencedByLease: the lease's fence applies to the
// generator's Next.
func TestNewSnowflakeFencedByLease(t *testing.T) {
	t.Parallel()
	for _, sm := range stores() {
		t.Run(sm.name, func(t *testing.T) {
			t.Parallel()
			s := sm.make(t)
			ctx := context.Background()
			l, err := s.lease(ctx, node.LeaseOptions{Layout: layout(t, 4)})
			require.NoError(t, err)
			defer l.Close(ctx)

			g, err := node.NewSnowflake(ctx, l)
			require.NoError(t, err)
			id, err := g.Next()
			require.NoError(t, err)
			p, err := l.Options().Layout.Decompose(id)
			require.NoError(t, err)
			require.Equal(t, l.Node(), p.Node)

			require.NoError(t, l.Close(ctx))
			_, err = g.Next()
			require.ErrorIs(t, err, generator.ErrFenced)
			require.ErrorIs(t, err, node.ErrLeaseClosed, "the lease's fence applies")
		})
	}
}

// TestNewSnowflakeLeaseFloorWins: a new holder of a node issues above the
// last ID of the previous holder.
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
			gb, err := node.NewSnowflake(ctx, b)
			require.NoError(t, err)
			id, err := gb.Next()
			require.NoError(t, err)
			p, _ := o.Layout.Decompose(id)
			require.Greater(t, p.Tick, last.Tick)
		})
	}
}

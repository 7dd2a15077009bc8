package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/types"
)

// TestNewSnowflakeTakesGeneratorOptions: the generator options given to
// NewLease make the generator: its layout, clock, borrow-ahead, backward
// tolerance and per-CPU blocks.
func TestNewSnowflakeTakesGeneratorOptions(t *testing.T) {
	t.Parallel()
	for _, sm := range stores() {
		t.Run(sm.name, func(t *testing.T) {
			t.Parallel()
			s := sm.make(t)
			ctx := context.Background()
			start := time.Now().Add(time.Hour) // ahead of any recorded mark
			clk := generatortest.NewFakeClock(start)
			lo := leaseConf{Layout: layout(t, 4), Gen: []generator.SnowflakeOption{
				generator.WithClock(clk), generator.WithBorrowAhead(2 * time.Millisecond), generator.WithBackwardTolerance(time.Hour)}}
			l, err := s.lease(ctx, lo)
			require.NoError(t, err)
			defer l.Close(ctx)

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
			// The backward tolerance: a clock set back a minute, within
			// the hour allowed (the default, 10 ms, would fail at once).
			clk.Add(-time.Minute)
			_, err = g.Next() // waits, on the fake clock's sleep

			require.NoError(t, err)

			// PerCPUBlocks: the first Next reserves a block of 4.
			l4, err := s.lease(ctx, leaseConf{Layout: layout(t, 4), Gen: []generator.SnowflakeOption{generator.WithPerCPUBlocks(4)}})
			require.NoError(t, err)
			defer l4.Close(ctx)
			g4, err := node.NewSnowflake(ctx, l4)
			require.NoError(t, err)
			_, err = g4.Next()
			require.NoError(t, err)
			require.EqualValues(t, 4, g4.Stats().Issued, "a P reserved a block of 4")
		})
	}
}

// TestNewSnowflakeRefusesBadPerCPUBlocks: the generator options are
// checked when the lease is made, as generator.NewSnowflake checks them.
func TestNewSnowflakeRefusesBadPerCPUBlocks(t *testing.T) {
	t.Parallel()
	s := stores()[0].make(t)
	for _, n := range []int{-1, 1<<16 + 1} {
		_, err := s.lease(context.Background(), leaseConf{Layout: layout(t, 4), Gen: []generator.SnowflakeOption{generator.WithPerCPUBlocks(n)}})
		require.ErrorIs(t, err, generator.ErrInvalidConfig, "PerCPUBlocks %d", n)
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
			l, err := s.lease(ctx, leaseConf{Layout: layout(t, 4)})
			require.NoError(t, err)
			defer l.Close(ctx)

			g, err := node.NewSnowflake(ctx, l)
			require.NoError(t, err)
			id, err := g.Next()
			require.NoError(t, err)
			p, err := layout(t, 4).Decompose(id)
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
			o := leaseConf{Layout: layout(t, 1)}
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

// TestOneGeneratorPerLease: a second NewSnowflake on one lease, after the
// first or while it waits, is refused with ErrInvalidConfig; two
// generators on one node would each run their own sequence. On every
// store, the user's code: one lease, two calls, IDs from both counted.
func TestOneGeneratorPerLease(t *testing.T) {
	t.Parallel()
	for _, sm := range stores() {
		t.Run(sm.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			l, err := sm.make(t).lease(ctx, leaseConf{})
			require.NoError(t, err)
			defer l.Close(ctx)
			g1, err := node.NewSnowflake(ctx, l)
			require.NoError(t, err)
			g2, err := node.NewSnowflake(ctx, l)
			if err == nil {
				// What the old code did: count the IDs both returned.
				seen := map[types.Snowflake]bool{}
				dups := 0
				for range 100_000 {
					for _, g := range []*generator.Snowflake{g1, g2} {
						id, err := g.Next()
						require.NoError(t, err)
						if seen[id] {
							dups++
						}
						seen[id] = true
					}
				}
				t.Fatalf("a second generator on one lease: %d of 200000 IDs repeated", dups)
			}
			require.ErrorIs(t, err, generator.ErrInvalidConfig)
			require.Contains(t, err.Error(), "already serves a generator")
			_, err = g1.Next() // the first keeps issuing
			require.NoError(t, err)
		})
	}
}

// TestOneGeneratorPerLeaseWhileWaiting: a call made while the first waits
// for the node's mark is refused too.
func TestOneGeneratorPerLeaseWhileWaiting(t *testing.T) {
	t.Parallel()
	s := sqlite(t)
	ctx := context.Background()
	s.fake(t, 0, time.Now().Add(time.Second)) // the first call waits for this mark
	l, err := s.lease(ctx, leaseConf{})
	require.NoError(t, err)
	defer l.Close(ctx)
	first := make(chan error, 1)
	go func() {
		_, err := node.NewSnowflake(ctx, l)
		first <- err
	}()
	time.Sleep(100 * time.Millisecond)
	_, err = node.NewSnowflake(ctx, l)
	require.ErrorIs(t, err, generator.ErrInvalidConfig)
	require.NoError(t, <-first)
}

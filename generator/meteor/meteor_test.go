package meteor_test

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/generator/meteor"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

// countingClock counts Now calls and reads a FakeClock.
type countingClock struct {
	*generatortest.FakeClock
	mu    sync.Mutex
	reads int
}

func (c *countingClock) Now() time.Time {
	c.mu.Lock()
	c.reads++
	c.mu.Unlock()
	return c.FakeClock.Now()
}

func TestNextUniqueConcurrent(t *testing.T) {
	t.Parallel()
	const block = 64
	for name, opts := range map[string][]meteor.Option{
		"strict":  nil,
		"per-CPU": {meteor.WithPerCPUBlocks(block)},
	} {
		g, err := meteor.New(42, opts...)
		require.NoError(t, err)
		start := g.Position()
		const workers, per = 8, 20000
		out := make([][]types.Snowflake, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				ids := make([]types.Snowflake, per)
				for i := range ids {
					ids[i] = g.MustNext()
				}
				out[w] = ids
			})
		}
		wg.Wait()
		seen := make(map[types.Snowflake]bool, workers*per)
		for _, ids := range out {
			for i, id := range ids {
				require.False(t, seen[id], "%s: duplicate %d", name, id)
				seen[id] = true
				if i > 0 && name == "strict" {
					require.Greater(t, id, ids[i-1])
				}
				p, err := g.Layout().Decompose(id)
				require.NoError(t, err)
				require.Equal(t, int64(42), p.Node)
			}
		}
		// Every value reserved was issued or is in a P's block: the time
		// part moved by the IDs issued plus at most one block per P.
		perSec := g.Layout().PerSecond()
		reserved := int64(g.Position().Sub(start)/time.Second) * perSec
		issued := int64(workers * per)
		require.GreaterOrEqual(t, reserved+perSec, issued, name)
		require.LessOrEqual(t, reserved-perSec, issued+int64(block*runtime.GOMAXPROCS(0)), name)
	}
}

func TestPerCPUBlocksStopAtLayoutEnd(t *testing.T) {
	t.Parallel()
	small, err := meteor.NewLayout(meteor.LayoutSpec{TimeBits: 2, NodeBits: 4, SequenceBits: 3, RandomBits: 1, Epoch: meteor.Default().Spec().Epoch})
	require.NoError(t, err)
	clk := generatortest.NewFakeClock(meteor.Default().Spec().Epoch.Add(2 * time.Second))
	g, err := meteor.New(3, meteor.WithLayout(small), meteor.WithClock(clk), meteor.WithPerCPUBlocks(5))
	require.NoError(t, err)
	seen := map[types.Snowflake]bool{}
	for range 100 {
		id, err := g.Next()
		if err != nil {
			require.ErrorIs(t, err, generator.ErrTimeOverflow)
			continue
		}
		require.False(t, seen[id], "duplicate %d", id)
		seen[id] = true
	}
	// Seconds 2 and 3 of a 2-bit time part hold 16 values; blocks of 5 that
	// cross the end hand out the values before it.
	require.LessOrEqual(t, len(seen), 16)
	require.GreaterOrEqual(t, len(seen), 16-5*runtime.GOMAXPROCS(0))
}

func TestClockReadOnceAndRollbackIgnored(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := &countingClock{FakeClock: generatortest.NewFakeClock(start)}
	g, err := meteor.New(7, meteor.WithClock(clk), meteor.WithSeed(1))
	require.NoError(t, err)
	prev := g.MustNext()
	clk.Set(start.Add(-time.Hour)) // the clock steps back an hour
	perSec := int(g.Layout().PerSecond())
	for range 3 * perSec {
		id, err := g.Next()
		require.NoError(t, err)
		require.Greater(t, id, prev)
		prev = id
	}
	require.Equal(t, 1, clk.reads, "the clock is read only at start")
	p, err := g.Layout().Decompose(prev)
	require.NoError(t, err)
	require.Equal(t, start.Add(3*time.Second), p.Time, "the time part advances once per wrapped sequence")
	require.Equal(t, start.Add(3*time.Second), g.Position())
	require.Equal(t, start, g.Start())
}

func TestRandomBitsSpreadIDs(t *testing.T) {
	t.Parallel()
	g, err := meteor.New(1, meteor.WithSeed(99))
	require.NoError(t, err)
	gaps := map[int64]int{}
	prev := g.MustNext()
	for range 1000 {
		id := g.MustNext()
		gaps[int64(id-prev)]++
		prev = id
	}
	require.Greater(t, len(gaps), 8, "gaps vary: %v", gaps)
	for gap := range gaps {
		require.Positive(t, gap)
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	small, err := meteor.NewLayout(meteor.LayoutSpec{TimeBits: 2, NodeBits: 4, SequenceBits: 3, RandomBits: 1, Epoch: meteor.Default().Spec().Epoch})
	require.NoError(t, err)
	clk := generatortest.NewFakeClock(meteor.Default().Spec().Epoch.Add(2 * time.Second))
	g, err := meteor.New(3, meteor.WithLayout(small), meteor.WithClock(clk))
	require.NoError(t, err)
	for range 2 * 8 { // seconds 2 and 3 of a 2-bit time part
		_, err := g.Next()
		require.NoError(t, err)
	}
	_, err = g.Next()
	require.ErrorIs(t, err, generator.ErrTimeOverflow)

	cases := []struct {
		name string
		opts []meteor.Option
		node int64
		want error
	}{
		{"node too big", nil, meteor.Default().MaxNode() + 1, generator.ErrNodeOutOfRange},
		{"negative node", nil, -1, generator.ErrNodeOutOfRange},
		{"nil clock", []meteor.Option{meteor.WithClock(nil)}, 1, generator.ErrInvalidConfig},
		{"zero per-CPU block", []meteor.Option{meteor.WithPerCPUBlocks(0)}, 1, generator.ErrInvalidConfig},
		{"per-CPU block too big", []meteor.Option{meteor.WithPerCPUBlocks(generator.MaxPerCPUBlock + 1)}, 1, generator.ErrInvalidConfig},
		{"zero layout", []meteor.Option{meteor.WithLayout(meteor.Layout{})}, 1, generator.ErrInvalidLayout},
		{"before epoch", []meteor.Option{meteor.WithClock(generatortest.NewFakeClock(meteor.Default().Spec().Epoch.Add(-time.Second)))}, 1, generator.ErrTimeOverflow},
		{"after end", []meteor.Option{meteor.WithClock(generatortest.NewFakeClock(meteor.Default().End()))}, 1, generator.ErrTimeOverflow},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := meteor.New(c.node, c.opts...)
			require.ErrorIs(t, err, c.want)
		})
	}
}

func TestNewLayoutRules(t *testing.T) {
	t.Parallel()
	e := meteor.Default().Spec().Epoch
	cases := []struct {
		name string
		spec meteor.LayoutSpec
		ok   bool
	}{
		{"default", meteor.Default().Spec(), true},
		{"no random bits", meteor.LayoutSpec{TimeBits: 32, NodeBits: 16, SequenceBits: 15, Epoch: e}, true},
		{"too wide", meteor.LayoutSpec{TimeBits: 32, NodeBits: 18, SequenceBits: 11, RandomBits: 3, Epoch: e}, false},
		{"no node", meteor.LayoutSpec{TimeBits: 31, SequenceBits: 11, Epoch: e}, false},
		{"time too wide", meteor.LayoutSpec{TimeBits: 41, NodeBits: 1, SequenceBits: 1, Epoch: e}, false},
		{"random too wide", meteor.LayoutSpec{TimeBits: 31, NodeBits: 10, SequenceBits: 11, RandomBits: 9, Epoch: e}, false},
		{"zero epoch", meteor.LayoutSpec{TimeBits: 31, NodeBits: 18, SequenceBits: 11}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := meteor.NewLayout(c.spec)
			if c.ok {
				require.NoError(t, err)
				require.Equal(t, c.spec, l.Spec())
				return
			}
			require.ErrorIs(t, err, generator.ErrInvalidLayout)
		})
	}
}

func TestDecompose(t *testing.T) {
	t.Parallel()
	g, err := meteor.New(12345, meteor.WithSeed(5))
	require.NoError(t, err)
	id := g.MustNext()
	p, err := meteor.Default().Decompose(id)
	require.NoError(t, err)
	require.Equal(t, int64(12345), p.Node)
	require.Equal(t, g.Start(), p.Time)
	_, err = meteor.Default().Decompose(-1)
	require.ErrorIs(t, err, generator.ErrInvalidID)
	_, err = meteor.Layout{}.Decompose(1)
	require.ErrorIs(t, err, generator.ErrInvalidLayout)
}

func TestNewFromDisposableSource(t *testing.T) {
	t.Parallel()
	db := testdb.SQLite(t)
	src := node.Disposable(db, node.DisposableOptions{MaxNode: meteor.Default().MaxNode()})
	seen := map[int64]bool{}
	for range 3 { // three "starts" get three node IDs
		g, err := meteor.NewFromSource(context.Background(), src)
		require.NoError(t, err)
		require.False(t, seen[g.Node()])
		seen[g.Node()] = true
	}
	_, err := meteor.NewFromSource(context.Background(), node.FromEnv("IDKIT_TEST_UNSET_VARIABLE"))
	require.ErrorIs(t, err, node.ErrNoNodeID)
}

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
	for name, opts := range map[string][]generator.SharedOption{
		"strict":  nil,
		"per-CPU": {generator.WithPerCPUBlocks(block)},
	} {
		g, err := meteor.New(42, meteor.Default(), opts...)
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
	g, err := meteor.New(3, small, generator.WithClock(clk), generator.WithPerCPUBlocks(5))
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
	g, err := meteor.NewSeeded(7, meteor.Default(), 1, generator.WithClock(clk))
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
	g, err := meteor.NewSeeded(1, meteor.Default(), 99)
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
	g, err := meteor.New(3, small, generator.WithClock(clk))
	require.NoError(t, err)
	for range 2 * 8 { // seconds 2 and 3 of a 2-bit time part
		_, err := g.Next()
		require.NoError(t, err)
	}
	_, err = g.Next()
	require.ErrorIs(t, err, generator.ErrTimeOverflow)

	cases := []struct {
		name   string
		layout meteor.Layout
		opts   []generator.SharedOption
		node   int64
		want   error
	}{
		{"node too big", meteor.Default(), nil, meteor.Default().MaxNode() + 1, generator.ErrNodeOutOfRange},
		{"negative node", meteor.Default(), nil, -1, generator.ErrNodeOutOfRange},
		{"nil clock", meteor.Default(), []generator.SharedOption{generator.WithClock(nil)}, 1, generator.ErrInvalidConfig},
		{"nil option ignored", meteor.Default(), []generator.SharedOption{nil}, 1, nil},
		{"zero per-CPU block", meteor.Default(), []generator.SharedOption{generator.WithPerCPUBlocks(0)}, 1, generator.ErrInvalidConfig},
		{"per-CPU block too big", meteor.Default(), []generator.SharedOption{generator.WithPerCPUBlocks(1<<16 + 1)}, 1, generator.ErrInvalidConfig},
		{"zero layout", meteor.Layout{}, nil, 1, generator.ErrInvalidLayout},
		{"before epoch", meteor.Default(), []generator.SharedOption{generator.WithClock(generatortest.NewFakeClock(meteor.Default().Spec().Epoch.Add(-time.Second)))}, 1, generator.ErrTimeOverflow},
		{"after end", meteor.Default(), []generator.SharedOption{generator.WithClock(generatortest.NewFakeClock(meteor.Default().End()))}, 1, generator.ErrTimeOverflow},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := meteor.New(c.node, c.layout, c.opts...)
			if c.want == nil {
				require.NoError(t, err)
				return
			}
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
	g, err := meteor.NewSeeded(12345, meteor.Default(), 5)
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

func TestNewOnDisposableSource(t *testing.T) {
	t.Parallel()
	db := testdb.SQLite(t)
	src := node.Disposable(db, node.DisposableOptions{MaxNode: meteor.Default().MaxNode()})
	seen := map[int64]bool{}
	for range 3 { // three "starts" get three node IDs
		id, err := src.NodeID(context.Background())
		require.NoError(t, err)
		g, err := meteor.New(id, meteor.Default())
		require.NoError(t, err)
		require.False(t, seen[g.Node()])
		seen[g.Node()] = true
	}
}

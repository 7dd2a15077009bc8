package generator_test

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/types"
)

func TestNewSnowflakeValidation(t *testing.T) {
	clock := generatortest.NewFakeClock(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	tests := []struct {
		name string
		node int64
		opts []generator.SnowflakeOption
		want error
	}{
		{"negative node", -1, nil, generator.ErrNodeOutOfRange},
		{"node above twitter's 10 bits", 1024, nil, generator.ErrNodeOutOfRange},
		{"node above sonyflake's 16 bits", 1 << 16, []generator.SnowflakeOption{generator.WithLayout(generator.Sonyflake())}, generator.ErrNodeOutOfRange},
		{"node bits above int64 shift", 1 << 40, nil, generator.ErrNodeOutOfRange},
		{"zero layout", 0, []generator.SnowflakeOption{generator.WithLayout(generator.Layout{})}, generator.ErrInvalidLayout},
		{"nil clock", 0, []generator.SnowflakeOption{generator.WithClock(nil)}, generator.ErrInvalidConfig},
		{"negative borrow-ahead", 0, []generator.SnowflakeOption{generator.WithBorrowAhead(-time.Millisecond)}, generator.ErrInvalidConfig},
		{"negative tolerance", 0, []generator.SnowflakeOption{generator.WithBackwardTolerance(-1)}, generator.ErrInvalidConfig},
		{"zero per-CPU block", 0, []generator.SnowflakeOption{generator.WithPerCPUBlocks(0)}, generator.ErrInvalidConfig},
		{"per-CPU block too big", 0, []generator.SnowflakeOption{generator.WithPerCPUBlocks(1<<16 + 1)}, generator.ErrInvalidConfig},
		{"floor at the layout's end", 0, []generator.SnowflakeOption{generator.WithNotBefore(generator.Twitter().End())}, generator.ErrTimeOverflow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := generator.NewSnowflake(tt.node, append([]generator.SnowflakeOption{generator.WithClock(clock)}, tt.opts...)...)
			require.ErrorIs(t, err, tt.want)
			assert.Nil(t, g)
		})
	}
	for _, node := range []int64{0, 1, 1023} {
		g, err := generator.NewSnowflake(node, generator.WithClock(clock), nil)
		require.NoError(t, err, "node %d", node)
		assert.Equal(t, node, g.Node())
		assert.Equal(t, generator.Twitter(), g.Layout())
	}
	g, err := generator.NewSnowflake(65535, generator.WithLayout(generator.Sonyflake()), generator.WithClock(clock))
	require.NoError(t, err)
	assert.Equal(t, generator.Sonyflake(), g.Layout())
}

func TestNextEncodesClockNodeAndSequence(t *testing.T) {
	at := time.Date(2024, 1, 2, 3, 4, 5, 678_900_000, time.UTC)
	for _, l := range []generator.Layout{generator.Twitter(), generator.Sonyflake(), generator.Discord()} {
		t.Run(l.Spec().Name, func(t *testing.T) {
			node := l.MaxNode() - 5
			g, err := generator.NewSnowflake(node, generator.WithLayout(l), generator.WithClock(generatortest.NewFakeClock(at)))
			require.NoError(t, err)
			wantTick, err := l.TickOf(at)
			require.NoError(t, err)
			var prev types.Snowflake
			for seq := range l.MaxSequence() + 1 {
				id, err := g.Next()
				require.NoError(t, err)
				require.Greater(t, id, prev)
				prev = id
				p, err := l.Decompose(id)
				require.NoError(t, err)
				require.Equal(t, generator.Parts{Time: l.TimeOf(wantTick), Tick: wantTick, Node: node, Sequence: seq}, p)
			}
			assert.Equal(t, l.TimeOf(wantTick), g.LastTime())
		})
	}
}

func TestNextNeverReturnsZero(t *testing.T) {
	// At the epoch itself, node 0's first ID would be 0 if tick 0
	// sequence 0 were issued; the generator starts at sequence 1.
	g, err := generator.NewSnowflake(0, generator.WithClock(generatortest.NewFakeClock(generator.Twitter().Spec().Epoch)))
	require.NoError(t, err)
	id, err := g.Next()
	require.NoError(t, err)
	assert.Equal(t, types.Snowflake(1), id)
	assert.False(t, id.IsZero())
}

func TestMustNext(t *testing.T) {
	clock := generatortest.NewFakeClock(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	g, err := generator.NewSnowflake(7, generator.WithClock(clock))
	require.NoError(t, err)
	a := g.MustNext()
	b := g.MustNext()
	assert.Greater(t, b, a)

	fenceErr := errors.New("lease lost")
	g, err = generator.NewSnowflake(7, generator.WithClock(clock), generator.WithFence(func() error { return fenceErr }))
	require.NoError(t, err)
	assert.PanicsWithError(t, "generator: fenced: lease lost", func() { g.MustNext() })
}

func TestNextDoesNotAllocate(t *testing.T) {
	g, err := generator.NewSnowflake(1, generator.WithBorrowAhead(time.Hour))
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := g.Next(); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}

// checkUniqueIncreasing checks that each slice is strictly increasing and
// that no value appears twice across slices, by a k-way merge (cheaper in
// time and memory than a map or a full sort).
func checkUniqueIncreasing(t *testing.T, lists [][]types.Snowflake) int {
	t.Helper()
	total := 0
	for w, ids := range lists {
		for i := 1; i < len(ids); i++ {
			if ids[i] <= ids[i-1] {
				t.Fatalf("worker %d: id %d at %d not above %d", w, ids[i], i, ids[i-1])
			}
		}
		total += len(ids)
	}
	heads := make([]int, len(lists))
	prev := types.Snowflake(-1)
	for range total {
		best := -1
		for w, ids := range lists {
			if heads[w] < len(ids) && (best < 0 || ids[heads[w]] < lists[best][heads[best]]) {
				best = w
			}
		}
		id := lists[best][heads[best]]
		heads[best]++
		if id == prev {
			t.Fatalf("duplicate id %d", id)
		}
		prev = id
	}
	return total
}

// nextConcurrently has workers goroutines call next each times and returns
// each goroutine's IDs in order. Only ErrClockMovedBackwards may be
// returned, and is retried (counted in the second result) after yielding.
func nextConcurrently(t *testing.T, workers, each int, next func() (types.Snowflake, error)) ([][]types.Snowflake, int64) {
	t.Helper()
	lists := make([][]types.Snowflake, workers)
	var backwards atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			ids := make([]types.Snowflake, 0, each)
			for len(ids) < each {
				id, err := next()
				if err != nil {
					if !errors.Is(err, generator.ErrClockMovedBackwards) {
						t.Error(err)
						return
					}
					backwards.Add(1)
					runtime.Gosched() // let the clock move on
					continue
				}
				ids = append(ids, id)
			}
			lists[w] = ids
		})
	}
	wg.Wait()
	require.False(t, t.Failed())
	return lists, backwards.Load()
}

func TestConcurrentNextUniqueAndIncreasing(t *testing.T) {
	const workers = 8
	total := 10_000_000
	if testing.Short() {
		total = 1_000_000
	}
	for name, opts := range map[string][]generator.SnowflakeOption{
		"strict":  nil,
		"per-CPU": {generator.WithBorrowAhead(time.Minute), generator.WithPerCPUBlocks(64)},
	} {
		g, err := generator.NewSnowflake(513, opts...)
		require.NoError(t, err)
		start := time.Now()
		lists, _ := nextConcurrently(t, workers, total/workers, g.Next)
		elapsed := time.Since(start)
		if name == "strict" {
			assert.Equal(t, total/workers*workers, checkUniqueIncreasing(t, lists))
		} else {
			assert.Equal(t, total/workers*workers, checkUnique(t, lists))
		}
		t.Logf("%s: %d IDs from %d goroutines in %v (%.0f ns/ID)", name, total, workers, elapsed, float64(elapsed)/float64(total))

		// The IDs carry the node and times from the run (per-CPU: up to
		// the borrowing bound ahead).
		for _, ids := range lists {
			for _, id := range []types.Snowflake{ids[0], ids[len(ids)/2], ids[len(ids)-1]} {
				p, err := generator.Twitter().Decompose(id)
				require.NoError(t, err)
				assert.Equal(t, int64(513), p.Node)
				assert.WithinRange(t, p.Time, start.Add(-time.Second), time.Now().Add(time.Minute))
			}
		}
	}
}

// latestClock is a FakeClock that records the latest time Now returned.
type latestClock struct {
	*generatortest.FakeClock
	latest atomic.Int64
}

func (c *latestClock) Now() time.Time {
	now := c.FakeClock.Now()
	for {
		l := c.latest.Load()
		if now.UnixNano() <= l || c.latest.CompareAndSwap(l, now.UnixNano()) {
			return now
		}
	}
}

// Latest returns the latest time Now returned.
func (c *latestClock) Latest() time.Time { return time.Unix(0, c.latest.Load()) }

// TestConcurrentNextWithErraticClock has many goroutines generate while
// another steps a fake clock back and forth, within and beyond the
// tolerance; failures must be ErrClockMovedBackwards only, the IDs that are
// issued must be unique (and, without per-CPU blocks, increasing per
// goroutine), and none may be further ahead of the latest time the
// generator read than borrowing allows, whatever the Ps' blocks hold.
func TestConcurrentNextWithErraticClock(t *testing.T) {
	const workers, perWorker = 8, 50_000
	base := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	small, err := generator.NewLayout(generator.LayoutSpec{Name: "small", TimeBits: 41, NodeBits: 10, SequenceBits: 4,
		Unit: time.Millisecond, Epoch: generator.Twitter().Spec().Epoch})
	require.NoError(t, err)
	for _, tc := range []struct {
		name              string
		tolerance, borrow time.Duration
		block             int
	}{
		{"wait", 3 * time.Millisecond, 0, 1},
		{"borrow", 2 * time.Millisecond, 4 * time.Millisecond, 1},
		{"wait/per-CPU", 2 * time.Millisecond, 0, 8},
		{"borrow/per-CPU", 2 * time.Millisecond, 4 * time.Millisecond, 8},
	} {
		clock := &latestClock{FakeClock: generatortest.NewFakeClock(base)}
		g, err := generator.NewSnowflake(9, generator.WithLayout(small), generator.WithClock(clock),
			generator.WithBackwardTolerance(tc.tolerance), generator.WithBorrowAhead(tc.borrow), generator.WithPerCPUBlocks(tc.block))
		require.NoError(t, err)
		done := make(chan struct{})
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			steps := []time.Duration{time.Millisecond, -2 * time.Millisecond, 5 * time.Millisecond, -20 * time.Millisecond, 30 * time.Millisecond}
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				clock.Add(steps[i%len(steps)])
				time.Sleep(10 * time.Microsecond)
			}
		}()
		var early atomic.Int64
		lists, backwards := nextConcurrently(t, workers, perWorker, func() (types.Snowflake, error) {
			id, err := g.Next()
			if err == nil {
				if p, _ := small.Decompose(id); p.Time.After(clock.Latest().Add(tc.borrow)) {
					early.Add(1)
				}
			}
			return id, err
		})
		close(done)
		<-stopped
		if tc.block == 1 {
			assert.Equal(t, workers*perWorker, checkUniqueIncreasing(t, lists), tc.name)
		} else {
			assert.Equal(t, workers*perWorker, checkUnique(t, lists), tc.name)
		}
		assert.Zero(t, early.Load(), "%s: IDs beyond the borrowing bound", tc.name)
		t.Logf("%s: %d IDs, %d ErrClockMovedBackwards", tc.name, workers*perWorker, backwards)
	}
}

func TestLastTime(t *testing.T) {
	at := time.Date(2024, 1, 2, 3, 4, 5, 600_000_000, time.UTC)
	clock := generatortest.NewFakeClock(at)
	g, err := generator.NewSnowflake(1, generator.WithClock(clock), generator.WithLayout(generator.Sonyflake()))
	require.NoError(t, err)
	assert.Equal(t, generator.Sonyflake().Spec().Epoch, g.LastTime(), "before the first ID")
	_, err = g.Next()
	require.NoError(t, err)
	assert.Equal(t, at, g.LastTime())
	clock.Add(25 * time.Millisecond)
	_, err = g.Next()
	require.NoError(t, err)
	assert.Equal(t, at.Add(20*time.Millisecond), g.LastTime(), "start of the 10 ms tick")

	// A new generator floored at the high-water mark issues only later ticks.
	h, err := generator.NewSnowflake(1, generator.WithClock(clock), generator.WithLayout(generator.Sonyflake()),
		generator.WithNotBefore(g.LastTime()))
	require.NoError(t, err)
	assert.Equal(t, g.LastTime(), h.LastTime())
	id, err := h.Next()
	require.NoError(t, err)
	p, err := generator.Sonyflake().Decompose(id)
	require.NoError(t, err)
	assert.True(t, p.Time.After(g.LastTime()))
}

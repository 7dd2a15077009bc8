package generator_test

import (
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// checkUnique checks that no ID appears twice across lists and returns how
// many there are. With per-CPU blocks IDs are not increasing per goroutine.
func checkUnique(t *testing.T, lists [][]types.Snowflake) int {
	t.Helper()
	all := slices.Concat(lists...)
	slices.Sort(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("duplicate id %d", all[i])
		}
	}
	return len(all)
}

func TestPerCPUBlocksConcurrentUnique(t *testing.T) {
	const workers, borrow = 8, time.Minute
	total := 4_000_000
	if testing.Short() {
		total = 400_000
	}
	g, err := generator.NewSnowflake(77, generator.WithBorrowAhead(borrow), generator.WithPerCPUBlocks(64))
	require.NoError(t, err)
	start := time.Now()
	lists := make([][]types.Snowflake, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			ids := make([]types.Snowflake, total/workers)
			for i := range ids {
				id, err := g.Next()
				if err != nil {
					t.Error(err)
					return
				}
				ids[i] = id
			}
			lists[w] = ids
		})
	}
	wg.Wait()
	require.False(t, t.Failed())
	assert.Equal(t, total/workers*workers, checkUnique(t, lists))
	for _, ids := range lists {
		for _, id := range []types.Snowflake{ids[0], ids[len(ids)/2], ids[len(ids)-1]} {
			p, err := generator.Twitter.Decompose(id)
			require.NoError(t, err)
			assert.Equal(t, int64(77), p.Node)
			assert.WithinRange(t, p.Time, start.Add(-time.Second), time.Now().Add(borrow))
		}
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := g.Next(); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
}

// latestClock is a FakeClock that records the latest time Now returned.
type latestClock struct {
	*generator.FakeClock
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

// TestPerCPUBlocksWithErraticClock is TestConcurrentNextWithErraticClock
// with per-CPU blocks: blocks held by Ps must never let an ID out that the
// clock, the tolerance or the borrowing bound forbids.
func TestPerCPUBlocksWithErraticClock(t *testing.T) {
	const workers, perWorker = 8, 50_000
	base := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	small, err := generator.NewLayout(generator.LayoutSpec{Name: "small", TimeBits: 41, NodeBits: 10, SequenceBits: 4,
		Unit: time.Millisecond, Epoch: generator.Twitter.Epoch()})
	require.NoError(t, err)
	const tolerance, borrowAhead = 2 * time.Millisecond, 4 * time.Millisecond
	for name, borrow := range map[string]time.Duration{"wait": 0, "borrow": borrowAhead} {
		clock := &latestClock{FakeClock: generator.NewFakeClock(base)}
		g, err := generator.NewSnowflake(9, generator.WithLayout(small), generator.WithClock(clock),
			generator.WithBackwardTolerance(tolerance), generator.WithBorrowAhead(borrow), generator.WithPerCPUBlocks(8))
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
		lists := make([][]types.Snowflake, workers)
		var backwards, early atomic.Int64
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				ids := make([]types.Snowflake, 0, perWorker)
				for len(ids) < perWorker {
					id, err := g.Next()
					if err != nil {
						if !errors.Is(err, generator.ErrClockMovedBackwards) {
							t.Error(err)
							return
						}
						backwards.Add(1)
						runtime.Gosched() // let the clock move on
						continue
					}
					// No ID is further ahead than borrowing allows of the
					// latest time the generator has read.
					p, err := small.Decompose(id)
					if err != nil {
						t.Error(err)
						return
					}
					if p.Time.After(clock.Latest().Add(borrow)) {
						early.Add(1)
					}
					ids = append(ids, id)
				}
				lists[w] = ids
			})
		}
		wg.Wait()
		close(done)
		<-stopped
		require.False(t, t.Failed())
		assert.Equal(t, workers*perWorker, checkUnique(t, lists), name)
		assert.Zero(t, early.Load(), "%s: IDs beyond the borrowing bound", name)
		t.Logf("%s: %d IDs, %d ErrClockMovedBackwards", name, workers*perWorker, backwards.Load())
	}
}

func TestPerCPUBlocksHeldValuesObeyClockAndFence(t *testing.T) {
	l := tinyLayout(t)
	clock := newRecordingClock(sfBase)
	lost := errors.New("lease lost")
	var fenceErr atomic.Pointer[error]
	g, err := generator.NewSnowflake(3, generator.WithLayout(l), generator.WithClock(clock),
		generator.WithBorrowAhead(10*time.Millisecond), generator.WithBackwardTolerance(time.Millisecond),
		generator.WithPerCPUBlocks(16), generator.WithFence(func() error {
			if e := fenceErr.Load(); e != nil {
				return *e
			}
			return nil
		}))
	require.NoError(t, err)
	first, p := nextParts(t, g) // this P now holds the rest of a block
	assert.Equal(t, mustTickOf(t, l, sfBase), p.Tick)
	assert.Equal(t, sfBase.Add(3*time.Millisecond), g.LastTime(), "a block of 16 spans 4 ticks of 4")

	// A clock further behind than borrowing and tolerance allow (11 ticks):
	// held values are not handed out.
	clock.Add(-20 * time.Millisecond)
	_, err = g.Next()
	require.ErrorIs(t, err, generator.ErrClockMovedBackwards)

	// A closed fence: held values are not handed out.
	clock.Set(sfBase)
	fenceErr.Store(&lost)
	_, err = g.Next()
	require.ErrorIs(t, err, generator.ErrFenced)
	fenceErr.Store(nil)

	// The clock moves past the block: IDs follow the clock.
	clock.Add(time.Second)
	id, p := nextParts(t, g)
	assert.Greater(t, id, first)
	assert.Equal(t, mustTickOf(t, l, clock.Now()), p.Tick)
	assert.Equal(t, int64(0), p.Sequence)
	assert.Empty(t, clock.Sleeps())
}

func TestPerCPUBlocksWaitWithoutBorrowing(t *testing.T) {
	l := tinyLayout(t)
	clock := newRecordingClock(sfBase)
	g, err := generator.NewSnowflake(3, generator.WithLayout(l), generator.WithClock(clock), generator.WithPerCPUBlocks(3))
	require.NoError(t, err)
	seen := map[types.Snowflake]bool{}
	for range 40 {
		before := clock.Now()
		id, p := nextParts(t, g)
		require.False(t, seen[id], "duplicate %d", id)
		seen[id] = true
		assert.LessOrEqual(t, p.Tick, mustTickOf(t, l, clock.Now()), "no ID from a tick the clock has not reached")
		assert.GreaterOrEqual(t, p.Tick, mustTickOf(t, l, before), "no ID from a tick the clock has passed")
	}
	// Each 4-value tick is filled by a block of 3 and one more value, so
	// 40 IDs take 10 ticks: the generator slept for 9.
	assert.Len(t, clock.Sleeps(), 9)
}

package generator_test

import (
	"errors"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
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

func TestPerCPUBlocksNextDoesNotAllocate(t *testing.T) {
	g, err := generator.NewSnowflake(77, generator.WithBorrowAhead(time.Hour), generator.WithPerCPUBlocks(64))
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := g.Next(); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs)
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

// A P created after the generator (GOMAXPROCS grew) has no block: it must
// take values one at a time rather than reserve a block and drop the rest.
func TestPerCPUBlocksAfterGOMAXPROCSGrows(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const block = 64
	// Borrowing far ahead on a fixed clock: no block is dropped for its tick
	// passing, so every value reserved is issued or still held by a P.
	clock := generatortest.NewFakeClock(sfBase)
	g, err := generator.NewSnowflake(1, generator.WithClock(clock), generator.WithBorrowAhead(time.Hour),
		generator.WithPerCPUBlocks(block))
	require.NoError(t, err)
	const procs, workers, each = 8, 8, 2000
	runtime.GOMAXPROCS(procs)
	lists, _ := nextConcurrently(t, workers, each, g.Next)
	issued := checkUnique(t, lists)
	l := g.Layout()
	first := mustTickOf(t, l, sfBase) << l.Spec().SequenceBits
	// The state's last value: every value from the first to it was reserved.
	reserved := mustTickOf(t, l, g.LastTime())<<l.Spec().SequenceBits + l.MaxSequence() - first + 1
	t.Logf("reserved %d issued %d", reserved, issued)
	assert.LessOrEqual(t, reserved, int64(issued+block*procs+int(l.MaxSequence())+1),
		"%d values reserved for %d IDs", reserved, issued)
}

package generator_test

import (
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/types"
)

// sfBase is a tick boundary for every layout under test.
var sfBase = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// recordingClock is a FakeClock that records the durations it was asked to
// sleep, and can run a hook inside one call of Now.
type recordingClock struct {
	*generatortest.FakeClock
	mu     sync.Mutex
	sleeps []time.Duration
	onNow  func()
}

func newRecordingClock(t time.Time) *recordingClock {
	return &recordingClock{FakeClock: generatortest.NewFakeClock(t)}
}

func (c *recordingClock) Now() time.Time {
	c.mu.Lock()
	hook := c.onNow
	c.onNow = nil
	c.mu.Unlock()
	now := c.FakeClock.Now()
	if hook != nil {
		hook()
	}
	return now
}

func (c *recordingClock) Sleep(d time.Duration) {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.mu.Unlock()
	c.FakeClock.Sleep(d)
}

func (c *recordingClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// tinyLayout has Twitter's epoch and unit but a 4-value sequence, so that
// exhaustion is quick to reach.
func tinyLayout(t testing.TB) generator.Layout {
	t.Helper()
	l, err := generator.NewLayout(generator.LayoutSpec{Name: "tiny", TimeBits: 41, NodeBits: 10, SequenceBits: 2,
		Unit: time.Millisecond, Epoch: generator.Twitter().Spec().Epoch})
	require.NoError(t, err)
	return l
}

// nextParts issues an ID and returns its parts under l.
func nextParts(t testing.TB, g *generator.Snowflake) (types.Snowflake, generator.Parts) {
	t.Helper()
	id, err := g.Next()
	require.NoError(t, err)
	p, err := g.Layout().Decompose(id)
	require.NoError(t, err)
	return id, p
}

func mustTickOf(t testing.TB, l generator.Layout, at time.Time) int64 {
	t.Helper()
	tick, err := l.TickOf(at)
	require.NoError(t, err)
	return tick
}

func TestSequenceExhaustionWaitsForNextTick(t *testing.T) {
	l := tinyLayout(t)
	clock := newRecordingClock(sfBase.Add(300 * time.Microsecond)) // mid-tick
	g, err := generator.NewSnowflake(3, generator.WithLayout(l), generator.WithClock(clock))
	require.NoError(t, err)
	t0 := mustTickOf(t, l, sfBase)
	var prev types.Snowflake
	for seq := range int64(4) {
		id, p := nextParts(t, g)
		assert.Equal(t, t0, p.Tick)
		assert.Equal(t, seq, p.Sequence)
		assert.Greater(t, id, prev)
		prev = id
	}
	assert.Empty(t, clock.Sleeps(), "no wait while the sequence lasts")

	id, p := nextParts(t, g)
	assert.Greater(t, id, prev)
	assert.Equal(t, t0+1, p.Tick, "the fifth ID is in the next tick")
	assert.Equal(t, int64(0), p.Sequence)
	assert.Equal(t, []time.Duration{700 * time.Microsecond}, clock.Sleeps(), "slept exactly until the next tick")
	assert.Equal(t, sfBase.Add(time.Millisecond), clock.Now())
}

func TestSequenceExhaustionBorrowsAhead(t *testing.T) {
	l := tinyLayout(t)
	clock := newRecordingClock(sfBase)
	g, err := generator.NewSnowflake(3, generator.WithLayout(l), generator.WithClock(clock),
		generator.WithBorrowAhead(3*time.Millisecond+500*time.Microsecond)) // rounds down to 3 ticks
	require.NoError(t, err)
	t0 := mustTickOf(t, l, sfBase)
	var prev types.Snowflake
	for i := range int64(16) { // ticks t0..t0+3 without waiting
		id, p := nextParts(t, g)
		assert.Equal(t, t0+i/4, p.Tick)
		assert.Equal(t, i%4, p.Sequence)
		assert.Greater(t, id, prev)
		prev = id
	}
	assert.Empty(t, clock.Sleeps(), "borrowing needs no wait")
	assert.Equal(t, l.TimeOf(t0+3), g.LastTime(), "LastTime runs ahead of the clock")
	assert.Equal(t, sfBase, clock.Now())

	// The bound is reached: the next tick, t0+4, may be issued only once the
	// clock reads t0+1.
	id, p := nextParts(t, g)
	assert.Greater(t, id, prev)
	assert.Equal(t, t0+4, p.Tick)
	assert.Equal(t, []time.Duration{time.Millisecond}, clock.Sleeps())
	assert.Equal(t, sfBase.Add(time.Millisecond), clock.Now())

	// When the clock jumps ahead, IDs follow the clock again.
	clock.Add(time.Second)
	_, p = nextParts(t, g)
	assert.Equal(t, mustTickOf(t, l, clock.Now()), p.Tick)
	assert.Equal(t, int64(0), p.Sequence)
}

func TestClockBackwardsWithinTolerance(t *testing.T) {
	l := tinyLayout(t)
	clock := newRecordingClock(sfBase)
	g, err := generator.NewSnowflake(3, generator.WithLayout(l), generator.WithClock(clock),
		generator.WithBackwardTolerance(5*time.Millisecond))
	require.NoError(t, err)
	t0 := mustTickOf(t, l, sfBase)
	prev, p := nextParts(t, g)
	require.Equal(t, t0, p.Tick)

	clock.Add(-4 * time.Millisecond)
	// The sequence of the last tick continues...
	for seq := int64(1); seq < 4; seq++ {
		id, p := nextParts(t, g)
		assert.Equal(t, t0, p.Tick)
		assert.Equal(t, seq, p.Sequence)
		assert.Greater(t, id, prev)
		prev = id
	}
	assert.Empty(t, clock.Sleeps())
	// ...and when it runs out, the generator waits for the clock to reach the
	// next tick rather than reuse an earlier one.
	id, p := nextParts(t, g)
	assert.Greater(t, id, prev)
	assert.Equal(t, t0+1, p.Tick)
	assert.Equal(t, []time.Duration{5 * time.Millisecond}, clock.Sleeps())
	assert.Equal(t, sfBase.Add(time.Millisecond), clock.Now())
}

func TestClockBackwardsBeyondTolerance(t *testing.T) {
	for _, borrow := range []time.Duration{0, 2 * time.Millisecond} {
		l := tinyLayout(t)
		clock := newRecordingClock(sfBase)
		g, err := generator.NewSnowflake(3, generator.WithLayout(l), generator.WithClock(clock),
			generator.WithBackwardTolerance(5*time.Millisecond), generator.WithBorrowAhead(borrow))
		require.NoError(t, err)
		prev, _ := nextParts(t, g)
		last := g.LastTime()

		clock.Add(-5*time.Millisecond - borrow - time.Millisecond)
		for range 3 {
			id, err := g.Next()
			require.ErrorIs(t, err, generator.ErrClockMovedBackwards, "borrow %v", borrow)
			assert.Contains(t, err.Error(), "generator: clock moved backwards: ")
			assert.Zero(t, id)
		}
		assert.Empty(t, clock.Sleeps(), "failing is immediate, never a long sleep")
		assert.Equal(t, last, g.LastTime(), "a failed Next issues nothing")

		// Once the clock is back within the tolerance, generation resumes
		// above every earlier ID.
		clock.Add(2 * time.Millisecond)
		id, p := nextParts(t, g)
		assert.Greater(t, id, prev)
		assert.Equal(t, mustTickOf(t, l, sfBase), p.Tick)
		clock.Set(sfBase.Add(time.Second))
		id2, p := nextParts(t, g)
		assert.Greater(t, id2, id)
		assert.Equal(t, mustTickOf(t, l, sfBase.Add(time.Second)), p.Tick)
	}
}

func TestClockBackwardsZeroTolerance(t *testing.T) {
	clock := newRecordingClock(sfBase)
	g, err := generator.NewSnowflake(3, generator.WithClock(clock), generator.WithBackwardTolerance(0))
	require.NoError(t, err)
	nextParts(t, g)
	clock.Add(-time.Millisecond)
	_, err = g.Next()
	require.ErrorIs(t, err, generator.ErrClockMovedBackwards)
	clock.Add(time.Millisecond)
	nextParts(t, g)
}

func TestDefaultBackwardTolerance(t *testing.T) {
	clock := newRecordingClock(sfBase)
	g, err := generator.NewSnowflake(3, generator.WithClock(clock))
	require.NoError(t, err)
	nextParts(t, g)
	clock.Add(-10 * time.Millisecond) // the documented default
	nextParts(t, g)
	clock.Add(-time.Millisecond)
	_, err = g.Next()
	require.ErrorIs(t, err, generator.ErrClockMovedBackwards)
}

// TestStaleClockReadingIsNotBackwards covers a reading that is old by the
// time it is used: another Next moves the state on to a later tick while
// this one holds an earlier reading. That is not a clock step back, even
// with zero tolerance.
func TestStaleClockReadingIsNotBackwards(t *testing.T) {
	l := tinyLayout(t)
	clock := newRecordingClock(sfBase)
	g, err := generator.NewSnowflake(3, generator.WithLayout(l), generator.WithClock(clock),
		generator.WithBackwardTolerance(0))
	require.NoError(t, err)
	var inner types.Snowflake
	clock.onNow = func() {
		// Runs inside the outer Next's clock read, after it has taken T.
		clock.Set(sfBase.Add(5 * time.Millisecond))
		inner, _ = nextParts(t, g)
	}
	outer, p := nextParts(t, g)
	assert.Greater(t, outer, inner)
	assert.Equal(t, mustTickOf(t, l, sfBase.Add(5*time.Millisecond)), p.Tick)
}

func TestNotBefore(t *testing.T) {
	l := tinyLayout(t)
	t.Run("floor ahead within tolerance waits", func(t *testing.T) {
		clock := newRecordingClock(sfBase)
		floor := sfBase.Add(3*time.Millisecond + 400*time.Microsecond)
		g, err := generator.NewSnowflake(3, generator.WithLayout(l), generator.WithClock(clock),
			generator.WithNotBefore(floor))
		require.NoError(t, err)
		_, p := nextParts(t, g)
		assert.True(t, p.Time.After(floor))
		assert.Equal(t, mustTickOf(t, l, floor)+1, p.Tick)
		assert.Equal(t, int64(0), p.Sequence)
		assert.Equal(t, []time.Duration{4 * time.Millisecond}, clock.Sleeps())
	})
	t.Run("floor ahead beyond tolerance fails until the clock passes it", func(t *testing.T) {
		clock := newRecordingClock(sfBase)
		floor := sfBase.Add(time.Minute)
		g, err := generator.NewSnowflake(3, generator.WithLayout(l), generator.WithClock(clock),
			generator.WithNotBefore(floor))
		require.NoError(t, err)
		_, err = g.Next()
		require.ErrorIs(t, err, generator.ErrClockMovedBackwards)
		assert.Empty(t, clock.Sleeps())
		clock.Set(floor) // still in the floor's tick: wait for the next one
		_, p := nextParts(t, g)
		assert.Equal(t, mustTickOf(t, l, floor)+1, p.Tick)
		clock.Set(floor.Add(time.Second))
		_, p = nextParts(t, g)
		assert.Equal(t, mustTickOf(t, l, floor.Add(time.Second)), p.Tick)
	})
	t.Run("floor behind the clock", func(t *testing.T) {
		clock := newRecordingClock(sfBase)
		g, err := generator.NewSnowflake(3, generator.WithLayout(l), generator.WithClock(clock),
			generator.WithNotBefore(sfBase.Add(-time.Hour)))
		require.NoError(t, err)
		_, p := nextParts(t, g)
		assert.Equal(t, mustTickOf(t, l, sfBase), p.Tick)
		assert.Empty(t, clock.Sleeps())
	})
	t.Run("zero time and pre-epoch floors are no floor", func(t *testing.T) {
		for _, floor := range []time.Time{{}, l.Spec().Epoch.Add(-time.Hour)} {
			clock := newRecordingClock(l.Spec().Epoch)
			g, err := generator.NewSnowflake(0, generator.WithLayout(l), generator.WithClock(clock),
				generator.WithNotBefore(floor))
			require.NoError(t, err)
			id, p := nextParts(t, g)
			assert.Equal(t, types.Snowflake(1), id)
			assert.Equal(t, int64(0), p.Tick)
		}
	})
}

func TestFence(t *testing.T) {
	l := tinyLayout(t)
	clock := newRecordingClock(sfBase)
	lost := errors.New("lease lost")
	var mu sync.Mutex
	var fenceErr error
	g, err := generator.NewSnowflake(3, generator.WithLayout(l), generator.WithClock(clock),
		generator.WithFence(func() error {
			mu.Lock()
			defer mu.Unlock()
			return fenceErr
		}))
	require.NoError(t, err)
	_, p := nextParts(t, g)
	assert.Equal(t, int64(0), p.Sequence)

	mu.Lock()
	fenceErr = lost
	mu.Unlock()
	for range 3 {
		id, err := g.Next()
		require.ErrorIs(t, err, generator.ErrFenced)
		require.ErrorIs(t, err, lost)
		assert.Equal(t, "generator: fenced: lease lost", err.Error())
		assert.Zero(t, id)
	}

	mu.Lock()
	fenceErr = nil
	mu.Unlock()
	_, p = nextParts(t, g)
	assert.Equal(t, int64(1), p.Sequence, "fenced calls issued nothing")
}

func TestFenceCheckedAfterWaiting(t *testing.T) {
	l := tinyLayout(t)
	clock := newRecordingClock(sfBase)
	deadline := sfBase.Add(500 * time.Microsecond)
	g, err := generator.NewSnowflake(3, generator.WithLayout(l), generator.WithClock(clock),
		generator.WithFence(func() error {
			if !clock.Now().Before(deadline) {
				return errors.New("lease expired")
			}
			return nil
		}))
	require.NoError(t, err)
	for range 4 {
		nextParts(t, g)
	}
	last := g.LastTime()
	_, err = g.Next() // waits for the next tick, past the deadline
	require.ErrorIs(t, err, generator.ErrFenced)
	assert.Len(t, clock.Sleeps(), 1)
	assert.Equal(t, last, g.LastTime(), "nothing issued after the fence closed")
}

func TestTimeOverflow(t *testing.T) {
	short, err := generator.NewLayout(generator.LayoutSpec{Name: "short", TimeBits: 4, NodeBits: 1, SequenceBits: 2,
		Unit: time.Second, Epoch: sfBase})
	require.NoError(t, err)
	require.Equal(t, sfBase.Add(16*time.Second), short.End())

	t.Run("sequence exhausted in the last tick", func(t *testing.T) {
		clock := newRecordingClock(short.End().Add(-time.Nanosecond))
		g, err := generator.NewSnowflake(1, generator.WithLayout(short), generator.WithClock(clock))
		require.NoError(t, err)
		var prev types.Snowflake
		for range 4 {
			id, p := nextParts(t, g)
			assert.Equal(t, short.MaxTick(), p.Tick)
			assert.Greater(t, id, prev)
			prev = id
		}
		_, err = g.Next()
		require.ErrorIs(t, err, generator.ErrTimeOverflow)
		assert.Empty(t, clock.Sleeps(), "no wait for a tick that cannot exist")
	})
	t.Run("borrowing stops at the end", func(t *testing.T) {
		clock := newRecordingClock(short.End().Add(-2 * time.Second))
		g, err := generator.NewSnowflake(1, generator.WithLayout(short), generator.WithClock(clock),
			generator.WithBorrowAhead(time.Hour))
		require.NoError(t, err)
		for range 8 {
			nextParts(t, g)
		}
		_, err = g.Next()
		require.ErrorIs(t, err, generator.ErrTimeOverflow)
	})
	t.Run("clock past the end", func(t *testing.T) {
		clock := newRecordingClock(short.End())
		g, err := generator.NewSnowflake(1, generator.WithLayout(short), generator.WithClock(clock))
		require.NoError(t, err)
		_, err = g.Next()
		require.ErrorIs(t, err, generator.ErrTimeOverflow)
		clock.Set(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
		_, err = g.Next()
		require.ErrorIs(t, err, generator.ErrTimeOverflow)
	})
	t.Run("clock before the epoch", func(t *testing.T) {
		clock := newRecordingClock(sfBase.Add(-time.Nanosecond))
		g, err := generator.NewSnowflake(1, generator.WithLayout(short), generator.WithClock(clock))
		require.NoError(t, err)
		_, err = g.Next()
		require.ErrorIs(t, err, generator.ErrTimeOverflow)
		clock.Set(sfBase)
		nextParts(t, g)
	})
}

func TestFakeClock(t *testing.T) {
	c := generatortest.NewFakeClock(sfBase)
	assert.Equal(t, sfBase, c.Now())
	c.Sleep(time.Second)
	assert.Equal(t, sfBase.Add(time.Second), c.Now())
	c.Sleep(-time.Hour)
	c.Sleep(0)
	assert.Equal(t, sfBase.Add(time.Second), c.Now(), "Sleep never moves the clock back")
	c.Add(-2 * time.Second)
	assert.Equal(t, sfBase.Add(-time.Second), c.Now())
	c.Set(sfBase)
	assert.Equal(t, sfBase, c.Now())

	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				c.Sleep(time.Millisecond)
				_ = c.Now()
			}
		})
	}
	wg.Wait()
	assert.Equal(t, sfBase.Add(8*time.Second), c.Now())

	sys := generator.SystemClock()
	before := time.Now()
	sys.Sleep(time.Millisecond)
	assert.GreaterOrEqual(t, sys.Now().Sub(before), time.Millisecond)
}

func TestHugeDurationsDoNotOverflow(t *testing.T) {
	clock := newRecordingClock(sfBase)
	g, err := generator.NewSnowflake(3, generator.WithClock(clock),
		generator.WithBackwardTolerance(time.Duration(math.MaxInt64)),
		generator.WithBorrowAhead(time.Duration(math.MaxInt64)))
	require.NoError(t, err)
	prev, _ := nextParts(t, g)
	clock.Set(generator.Twitter().Spec().Epoch.Add(time.Millisecond)) // far behind, but tolerated
	id, p := nextParts(t, g)
	assert.Greater(t, id, prev)
	assert.Equal(t, mustTickOf(t, generator.Twitter(), sfBase), p.Tick)
}

// On the system clock, a layout whose time range has ended fails with
// ErrTimeOverflow on every path, also where the tick shifted into the state
// word would overflow int64 (30 time bits + 33 sequence bits).
func TestSystemClockEndedLayout(t *testing.T) {
	epoch := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, spec := range []generator.LayoutSpec{
		{Name: "wide sequence", TimeBits: 30, SequenceBits: 33, Unit: time.Millisecond, Epoch: epoch},
		{Name: "narrow", TimeBits: 30, NodeBits: 10, SequenceBits: 12, Unit: time.Millisecond, Epoch: epoch},
		{Name: "10ms wide", TimeBits: 20, SequenceBits: 40, Unit: 10 * time.Millisecond, Epoch: epoch},
	} {
		l, err := generator.NewLayout(spec)
		require.NoError(t, err)
		require.True(t, l.End().Before(time.Now()))
		for name, opts := range map[string][]generator.SnowflakeOption{
			"strict":          nil,
			"borrow":          {generator.WithBorrowAhead(time.Hour)},
			"per-CPU":         {generator.WithPerCPUBlocks(64)},
			"per-CPU, borrow": {generator.WithPerCPUBlocks(64), generator.WithBorrowAhead(time.Hour)},
			"random sequence": {generator.WithRandomSequenceStart()},
		} {
			g, err := generator.NewSnowflake(0, append([]generator.SnowflakeOption{generator.WithLayout(l)}, opts...)...)
			require.NoError(t, err)
			for range 3 {
				id, err := g.Next()
				require.ErrorIs(t, err, generator.ErrTimeOverflow, "%s, %s: got %d", spec.Name, name, id)
				require.Zero(t, id)
			}
		}
	}
}

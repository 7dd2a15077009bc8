package generator_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/types"
)

// The presets are functions: no caller can reassign them and change what
// every other caller, and NewSnowflake's default, gets.
var _ = []func() generator.Layout{generator.Twitter, generator.Sonyflake, generator.Discord}

func TestNewSnowflakeDefaultLayoutIsTwitter(t *testing.T) {
	g, err := generator.NewSnowflake(1)
	require.NoError(t, err)
	assert.Equal(t, generator.Twitter(), g.Layout())
}

func TestOptionsNilIgnored(t *testing.T) {
	g, err := generator.NewSnowflake(1, nil, generator.WithFence(nil), nil)
	require.NoError(t, err)
	_, err = g.Next()
	require.NoError(t, err)
	o, err := generator.NewObjectID(nil)
	require.NoError(t, err)
	assert.False(t, o.Next().IsZero())
}

func TestOptionsRejected(t *testing.T) {
	clock := generatortest.NewFakeClock(sfBase)
	for _, c := range []struct {
		name      string
		snowflake []generator.SnowflakeOption // rejected by NewSnowflake
		objectID  []generator.ObjectIDOption  // rejected by NewObjectID
		want      error
	}{
		{"nil clock", []generator.SnowflakeOption{generator.WithClock(nil)}, []generator.ObjectIDOption{generator.WithClock(nil)}, generator.ErrInvalidConfig},
		{"block 0", []generator.SnowflakeOption{generator.WithPerCPUBlocks(0)}, []generator.ObjectIDOption{generator.WithPerCPUBlocks(0)}, generator.ErrInvalidConfig},
		{"block too big",
			[]generator.SnowflakeOption{generator.WithPerCPUBlocks(1<<16 + 1)},
			[]generator.ObjectIDOption{generator.WithPerCPUBlocks(1<<16 + 1)}, generator.ErrInvalidConfig},
		{"worker out of range", nil, []generator.ObjectIDOption{generator.WithWorkerID(-1)}, generator.ErrNodeOutOfRange},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.snowflake != nil {
				g, err := generator.NewSnowflake(1, append([]generator.SnowflakeOption{generator.WithClock(clock)}, c.snowflake...)...)
				require.ErrorIs(t, err, c.want)
				assert.Nil(t, g)
			}
			g, err := generator.NewObjectID(c.objectID...)
			require.ErrorIs(t, err, c.want)
			assert.Nil(t, g)
		})
	}
}

// Each option satisfies exactly the option types of the generators that
// take it, so passing it to the other generator does not compile.
func TestOptionTypes(t *testing.T) {
	snowflake := reflect.TypeFor[generator.SnowflakeOption]()
	objectID := reflect.TypeFor[generator.ObjectIDOption]()
	for _, c := range []struct {
		name                string
		opt                 any
		snowflake, objectID bool
	}{
		{"WithClock", generator.WithClock(generator.SystemClock()), true, true},
		{"WithPerCPUBlocks", generator.WithPerCPUBlocks(2), true, true},
		{"WithLayout", generator.WithLayout(generator.Twitter()), true, false},
		{"WithBorrowAhead", generator.WithBorrowAhead(time.Millisecond), true, false},
		{"WithBackwardTolerance", generator.WithBackwardTolerance(0), true, false},
		{"WithNotBefore", generator.WithNotBefore(sfBase), true, false},
		{"WithFence", generator.WithFence(nil), true, false},
		{"WithRandomSequenceStart", generator.WithRandomSequenceStart(), true, false},
		{"WithProcessUnique", generator.WithProcessUnique([5]byte{1}), false, true},
		{"WithWorkerID", generator.WithWorkerID(1), false, true},
		{"WithCounterStart", generator.WithCounterStart(1), false, true},
	} {
		typ := reflect.TypeOf(c.opt)
		assert.Equal(t, c.snowflake, typ.Implements(snowflake), "%s is a SnowflakeOption", c.name)
		assert.Equal(t, c.objectID, typ.Implements(objectID), "%s is an ObjectIDOption", c.name)
	}
}

// WithClock and WithPerCPUBlocks mean the same for both generators.
func TestSharedOptions(t *testing.T) {
	start := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	clock := generatortest.NewFakeClock(start)
	o, err := generator.NewObjectID(generator.WithClock(clock), generator.WithPerCPUBlocks(16))
	require.NoError(t, err)
	assert.Equal(t, start, o.Next().Timestamp().UTC())
	s, err := generator.NewSnowflake(1, generator.WithClock(clock), generator.WithPerCPUBlocks(16))
	require.NoError(t, err)
	p, err := generator.Twitter().Decompose(s.MustNext())
	require.NoError(t, err)
	assert.Equal(t, start, p.Time)
	// The system clock given explicitly is the default.
	o, err = generator.NewObjectID(generator.WithClock(generator.SystemClock()))
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), o.Next().Timestamp(), 2*time.Second)
}

// At 10 IDs a second every ID is the first of its millisecond: by default
// its sequence is 0, so id % 16 puts every ID on one shard. With
// WithRandomSequenceStart the shards fill evenly, and IDs stay increasing.
func TestRandomSequenceStartSpreadsShards(t *testing.T) {
	const n, shards = 3200, 16
	spread := func(opts ...generator.SnowflakeOption) [shards]int {
		clock := generatortest.NewFakeClock(sfBase)
		g, err := generator.NewSnowflake(5, append([]generator.SnowflakeOption{generator.WithClock(clock)}, opts...)...)
		require.NoError(t, err)
		var counts [shards]int
		var prev types.Snowflake
		for range n {
			id := g.MustNext()
			require.Greater(t, id, prev)
			prev = id
			counts[id%shards]++
			clock.Add(100 * time.Millisecond) // 10 IDs per second
		}
		return counts
	}
	assert.Equal(t, [shards]int{n}, spread(), "sequence 0 at each tick")
	counts := spread(generator.WithRandomSequenceStart())
	for i, c := range counts { // mean 200, standard deviation about 14
		assert.InDelta(t, n/shards, c, 100, "shard %d: %v", i, counts)
	}
}

// With a random start a tick holds between half and all of its sequence;
// exhaustion then waits (or borrows) as without it, and nothing repeats.
func TestRandomSequenceStartExhaustion(t *testing.T) {
	l := tinyLayout(t) // 4 values per tick: the start is 0 or 1
	for name, opts := range map[string][]generator.SnowflakeOption{
		"wait":   nil,
		"borrow": {generator.WithBorrowAhead(5 * time.Millisecond)},
	} {
		clock := newRecordingClock(sfBase)
		g, err := generator.NewSnowflake(1, append([]generator.SnowflakeOption{generator.WithLayout(l), generator.WithClock(clock),
			generator.WithRandomSequenceStart()}, opts...)...)
		require.NoError(t, err)
		var prev types.Snowflake
		starts := map[int64]int{}
		perTick := map[int64]int{}
		for range 400 {
			id, p := nextParts(t, g)
			require.Greater(t, id, prev, name)
			prev = id
			perTick[p.Tick]++
			if perTick[p.Tick] == 1 {
				starts[p.Sequence]++
			}
			assert.LessOrEqual(t, p.Tick, mustTickOf(t, l, clock.Now())+5, name)
			if name == "wait" {
				assert.LessOrEqual(t, p.Tick, mustTickOf(t, l, clock.Now()), name)
			}
		}
		last, _ := nextParts(t, g)
		lastTick, err := l.Decompose(last)
		require.NoError(t, err)
		delete(perTick, lastTick.Tick) // the last tick may be unfinished
		for tick, c := range perTick {
			assert.True(t, c >= 2 && c <= 4, "%s: tick %d holds %d", name, tick, c)
		}
		if name == "wait" {
			assert.Len(t, starts, 2, "%s: starts %v", name, starts)
		}
	}
}

// On the system clock (the coarse fast path) a random start spreads too.
func TestRandomSequenceStartSystemClock(t *testing.T) {
	g, err := generator.NewSnowflake(5, generator.WithRandomSequenceStart())
	require.NoError(t, err)
	shards := map[types.Snowflake]bool{}
	var prev types.Snowflake
	for range 60 {
		id := g.MustNext()
		require.Greater(t, id, prev)
		prev = id
		shards[id%16] = true
		time.Sleep(2 * time.Millisecond) // a new tick for each ID
	}
	assert.Greater(t, len(shards), 8, "shards used: %v", shards)
}

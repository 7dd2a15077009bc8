package generator_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err)
	return v
}

func TestPresets(t *testing.T) {
	tests := []struct {
		layout              generator.Layout
		name                string
		timeBits, node, seq uint8
		unit                time.Duration
		epoch, end          string
		maxNode, maxSeq     int64
		sequenceAboveNode   bool
		str                 string
	}{
		{generator.Twitter(), "twitter", 41, 10, 12, time.Millisecond,
			"2010-11-04T01:42:54.657Z", "2080-07-10T17:30:30.209Z", 1023, 4095, false,
			"twitter(41/10/12, 1ms, epoch 2010-11-04T01:42:54.657Z)"},
		{generator.Sonyflake(), "sonyflake", 39, 16, 8, 10 * time.Millisecond,
			"2014-09-01T00:00:00Z", "2188-11-16T03:28:58.88Z", 65535, 255, true,
			"sonyflake(39/16/8, sequence above node, 10ms, epoch 2014-09-01T00:00:00Z)"},
		{generator.Discord(), "discord", 41, 10, 12, time.Millisecond,
			"2015-01-01T00:00:00Z", "2084-09-06T15:47:35.552Z", 1023, 4095, false,
			"discord(41/10/12, 1ms, epoch 2015-01-01T00:00:00Z)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.layout
			assert.Equal(t, tt.name, l.Spec().Name)
			assert.Equal(t, tt.timeBits, l.Spec().TimeBits)
			assert.Equal(t, tt.node, l.Spec().NodeBits)
			assert.Equal(t, tt.seq, l.Spec().SequenceBits)
			assert.Equal(t, tt.unit, l.Spec().Unit)
			assert.True(t, mustTime(t, tt.epoch).Equal(l.Spec().Epoch), "epoch %v", l.Spec().Epoch)
			assert.Equal(t, time.UTC, l.Spec().Epoch.Location())
			assert.True(t, mustTime(t, tt.end).Equal(l.End()), "end %v", l.End())
			assert.Equal(t, tt.maxNode, l.MaxNode())
			assert.Equal(t, tt.maxSeq, l.MaxSequence())
			assert.Equal(t, int64(1)<<tt.timeBits-1, l.MaxTick())
			assert.Equal(t, tt.sequenceAboveNode, l.Spec().SequenceAboveNode)
			assert.False(t, l.IsZero())
			assert.Equal(t, tt.str, l.String())
			again, err := generator.NewLayout(l.Spec())
			require.NoError(t, err)
			assert.Equal(t, l, again, "NewLayout(l.Spec()) must give l back")
		})
	}
	assert.Equal(t, int64(1288834974657), generator.Twitter().Spec().Epoch.UnixMilli())
	assert.Equal(t, int64(1420070400000), generator.Discord().Spec().Epoch.UnixMilli())
}

func TestNewLayoutValidation(t *testing.T) {
	epoch := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	ok := generator.LayoutSpec{TimeBits: 41, NodeBits: 10, SequenceBits: 12, Unit: time.Millisecond, Epoch: epoch}
	with := func(f func(*generator.LayoutSpec)) generator.LayoutSpec {
		s := ok
		f(&s)
		return s
	}
	bad := map[string]generator.LayoutSpec{
		"zero spec":           {},
		"no time bits":        with(func(s *generator.LayoutSpec) { s.TimeBits = 0 }),
		"no sequence bits":    with(func(s *generator.LayoutSpec) { s.SequenceBits = 0 }),
		"64 bits":             with(func(s *generator.LayoutSpec) { s.TimeBits = 42 }),
		"255 bits":            with(func(s *generator.LayoutSpec) { s.TimeBits, s.NodeBits, s.SequenceBits = 255, 255, 255 }),
		"zero unit":           with(func(s *generator.LayoutSpec) { s.Unit = 0 }),
		"negative unit":       with(func(s *generator.LayoutSpec) { s.Unit = -time.Millisecond }),
		"span over duration":  with(func(s *generator.LayoutSpec) { s.Unit = 5 * time.Millisecond }), // 2^41*5ms > 292y
		"63 time bits of 1ns": {TimeBits: 62, SequenceBits: 1, Unit: 2, Epoch: epoch},
		"zero epoch":          with(func(s *generator.LayoutSpec) { s.Epoch = time.Time{} }),
	}
	for name, spec := range bad {
		t.Run(name, func(t *testing.T) {
			l, err := generator.NewLayout(spec)
			require.ErrorIs(t, err, generator.ErrInvalidLayout)
			assert.Contains(t, err.Error(), "generator: invalid layout: ")
			assert.True(t, l.IsZero())
		})
	}
	good := map[string]generator.LayoutSpec{
		"twitter bits":     ok,
		"no node bits":     with(func(s *generator.LayoutSpec) { s.NodeBits = 0 }),
		"all 63 bits":      with(func(s *generator.LayoutSpec) { s.SequenceBits = 12 + 10; s.NodeBits = 0 }),
		"one bit each":     {TimeBits: 1, SequenceBits: 1, Unit: time.Hour, Epoch: epoch},
		"62 bits of 1ns":   {TimeBits: 62, SequenceBits: 1, Unit: 1, Epoch: epoch},
		"sonyflake order":  with(func(s *generator.LayoutSpec) { s.SequenceAboveNode = true }),
		"max span seconds": {TimeBits: 33, SequenceBits: 20, Unit: time.Second, Epoch: epoch},
	}
	for name, spec := range good {
		t.Run(name, func(t *testing.T) {
			l, err := generator.NewLayout(spec)
			require.NoError(t, err)
			assert.False(t, l.IsZero())
			assert.Equal(t, spec.TimeBits, l.Spec().TimeBits)
			assert.Equal(t, "custom", l.Spec().Name)
			// End must be representable and after the epoch.
			assert.True(t, l.End().After(l.Spec().Epoch))
			assert.Equal(t, time.Duration(1<<spec.TimeBits)*spec.Unit, l.End().Sub(l.Spec().Epoch))
		})
	}
}

func TestNewLayoutNormalizesEpoch(t *testing.T) {
	loc := time.FixedZone("UTC+8", 8*3600)
	local := time.Date(2020, 1, 1, 8, 0, 0, 0, loc)
	l, err := generator.NewLayout(generator.LayoutSpec{Name: "x", TimeBits: 41, SequenceBits: 12,
		Unit: time.Millisecond, Epoch: local})
	require.NoError(t, err)
	assert.Equal(t, time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), l.Spec().Epoch)
	assert.Equal(t, "x", l.Spec().Name)

	// A monotonic reading is stripped, so equal specs give equal layouts.
	now := time.Now()
	a, err := generator.NewLayout(generator.LayoutSpec{TimeBits: 41, SequenceBits: 12, Unit: time.Millisecond, Epoch: now})
	require.NoError(t, err)
	b, err := generator.NewLayout(generator.LayoutSpec{TimeBits: 41, SequenceBits: 12, Unit: time.Millisecond, Epoch: now.Round(0).UTC()})
	require.NoError(t, err)
	assert.Equal(t, a, b)
}

func testLayouts(t testing.TB) []generator.Layout {
	epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	specs := []generator.LayoutSpec{
		{Name: "nonode", TimeBits: 40, NodeBits: 0, SequenceBits: 10, Unit: time.Millisecond, Epoch: epoch},
		{Name: "sony-like", TimeBits: 30, NodeBits: 5, SequenceBits: 3, Unit: time.Second, Epoch: epoch, SequenceAboveNode: true},
		{Name: "full", TimeBits: 20, NodeBits: 20, SequenceBits: 23, Unit: time.Hour, Epoch: epoch},
	}
	ls := []generator.Layout{generator.Twitter(), generator.Sonyflake(), generator.Discord()}
	for _, s := range specs {
		l, err := generator.NewLayout(s)
		require.NoError(t, err)
		ls = append(ls, l)
	}
	return ls
}

func TestComposeDecomposeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, l := range testLayouts(t) {
		t.Run(l.Spec().Name, func(t *testing.T) {
			total := l.Spec().TimeBits + l.Spec().NodeBits + l.Spec().SequenceBits
			for range 20000 {
				tick := r.Int64N(l.MaxTick() + 1)
				node := r.Int64N(l.MaxNode() + 1)
				seq := r.Int64N(l.MaxSequence() + 1)
				id, err := l.Compose(tick, node, seq)
				if err != nil || id < 0 {
					t.Fatalf("Compose(%d, %d, %d) = %d, %v", tick, node, seq, id, err)
				}
				p, err := l.Decompose(id)
				want := generator.Parts{Time: l.TimeOf(tick), Tick: tick, Node: node, Sequence: seq}
				if err != nil || p != want {
					t.Fatalf("Decompose(%d) = %+v, %v; want %+v", id, p, err, want)
				}

				// And the other way: any value that fits the layout's bits
				// decomposes and composes back to itself.
				v := types.Snowflake(r.Int64N(math.MaxInt64) >> (63 - total))
				p, err = l.Decompose(v)
				if err != nil {
					t.Fatalf("Decompose(%d): %v", v, err)
				}
				back, err := l.Compose(p.Tick, p.Node, p.Sequence)
				if err != nil || back != v {
					t.Fatalf("Compose(Decompose(%d)) = %d, %v", v, back, err)
				}
			}
		})
	}
}

func TestComposeFieldOrder(t *testing.T) {
	id, err := generator.Twitter().Compose(1, 1, 1)
	require.NoError(t, err)
	assert.Equal(t, types.Snowflake(1<<22|1<<12|1), id)
	id, err = generator.Sonyflake().Compose(1, 1, 1)
	require.NoError(t, err)
	assert.Equal(t, types.Snowflake(1<<24|1<<16|1), id)
}

func TestComposeRanges(t *testing.T) {
	l := generator.Twitter()
	tests := []struct {
		name            string
		tick, node, seq int64
		want            error
	}{
		{"negative tick", -1, 0, 0, generator.ErrTimeOverflow},
		{"tick too large", l.MaxTick() + 1, 0, 0, generator.ErrTimeOverflow},
		{"negative node", 0, -1, 0, generator.ErrNodeOutOfRange},
		{"node too large", 0, 1024, 0, generator.ErrNodeOutOfRange},
		{"negative sequence", 0, 0, -1, generator.ErrInvalidID},
		{"sequence too large", 0, 0, 4096, generator.ErrInvalidID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := l.Compose(tt.tick, tt.node, tt.seq)
			require.ErrorIs(t, err, tt.want)
			assert.Zero(t, id)
		})
	}
	_, err := generator.Layout{}.Compose(0, 0, 0)
	require.ErrorIs(t, err, generator.ErrInvalidLayout)
}

func TestDecomposeInvalid(t *testing.T) {
	small, err := generator.NewLayout(generator.LayoutSpec{TimeBits: 30, NodeBits: 0, SequenceBits: 10,
		Unit: time.Millisecond, Epoch: time.Unix(0, 0)})
	require.NoError(t, err)
	tests := []struct {
		name   string
		layout generator.Layout
		id     types.Snowflake
		want   error
	}{
		{"negative", generator.Twitter(), -1, generator.ErrInvalidID},
		{"min int64", generator.Sonyflake(), math.MinInt64, generator.ErrInvalidID},
		{"bit 40 of a 40-bit layout", small, 1 << 40, generator.ErrInvalidID},
		{"max int64 in a 40-bit layout", small, math.MaxInt64, generator.ErrInvalidID},
		{"zero layout", generator.Layout{}, 1, generator.ErrInvalidLayout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.layout.Decompose(tt.id)
			require.ErrorIs(t, err, tt.want)
			assert.Equal(t, generator.Parts{}, p)
		})
	}
	p, err := small.Decompose(1<<40 - 1)
	require.NoError(t, err)
	assert.Equal(t, small.MaxTick(), p.Tick)
	assert.Equal(t, small.MaxSequence(), p.Sequence)
}

func TestTickOfTimeOf(t *testing.T) {
	for _, l := range testLayouts(t) {
		t.Run(l.Spec().Name, func(t *testing.T) {
			_, err := l.TickOf(l.Spec().Epoch.Add(-1))
			require.ErrorIs(t, err, generator.ErrTimeOverflow)
			_, err = l.TickOf(l.End())
			require.ErrorIs(t, err, generator.ErrTimeOverflow)
			_, err = l.TickOf(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(100000000, 0, 0))
			require.ErrorIs(t, err, generator.ErrTimeOverflow, "a time past Duration's range saturates, never wraps")

			tick, err := l.TickOf(l.Spec().Epoch)
			require.NoError(t, err)
			assert.Zero(t, tick)
			tick, err = l.TickOf(l.End().Add(-1))
			require.NoError(t, err)
			assert.Equal(t, l.MaxTick(), tick)
			assert.Equal(t, l.End(), l.TimeOf(l.MaxTick()+1))

			r := rand.New(rand.NewPCG(3, 4))
			span := l.End().Sub(l.Spec().Epoch)
			for range 1000 {
				at := l.Spec().Epoch.Add(time.Duration(r.Int64N(int64(span))))
				tick, err := l.TickOf(at)
				require.NoError(t, err)
				start := l.TimeOf(tick)
				assert.False(t, start.After(at))
				assert.True(t, at.Before(l.TimeOf(tick+1)))
				assert.Equal(t, time.UTC, start.Location())
			}
		})
	}
	_, err := generator.Layout{}.TickOf(time.Now())
	require.ErrorIs(t, err, generator.ErrInvalidLayout)
}

func TestMinMaxIDBracketEveryIDOfTheTick(t *testing.T) {
	tiny, err := generator.NewLayout(generator.LayoutSpec{Name: "tiny", TimeBits: 10, NodeBits: 2, SequenceBits: 3,
		Unit: time.Second, Epoch: time.Unix(0, 0)})
	require.NoError(t, err)
	tinySony, err := generator.NewLayout(generator.LayoutSpec{Name: "tiny-sony", TimeBits: 10, NodeBits: 3, SequenceBits: 2,
		Unit: time.Second, Epoch: time.Unix(0, 0), SequenceAboveNode: true})
	require.NoError(t, err)
	for _, l := range []generator.Layout{tiny, tinySony} {
		t.Run(l.Spec().Name, func(t *testing.T) {
			// Exhaustively: every ID of a tick lies in [MinID, MaxID], and
			// every ID of other ticks lies outside.
			for tick := range l.MaxTick() + 1 {
				at := l.TimeOf(tick).Add(l.Spec().Unit / 2)
				lo, err := l.MinID(at)
				require.NoError(t, err)
				hi, err := l.MaxID(at)
				require.NoError(t, err)
				require.Equal(t, lo, mustCompose(t, l, tick, 0, 0))
				require.Equal(t, hi, mustCompose(t, l, tick, l.MaxNode(), l.MaxSequence()))
				for other := max(tick-1, 0); other <= min(tick+1, l.MaxTick()); other++ {
					for node := range l.MaxNode() + 1 {
						for seq := range l.MaxSequence() + 1 {
							id, err := l.Compose(other, node, seq)
							if err != nil {
								t.Fatal(err)
							}
							if in := lo <= id && id <= hi; in != (other == tick) {
								t.Fatalf("tick %d: id %d (tick %d node %d seq %d) in [%d, %d] = %v",
									tick, id, other, node, seq, lo, hi, in)
							}
						}
					}
				}
			}
		})
	}
	for _, l := range testLayouts(t) {
		t.Run(l.Spec().Name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 6))
			for range 1000 {
				tick := r.Int64N(l.MaxTick())
				at := l.TimeOf(tick)
				lo, err := l.MinID(at)
				require.NoError(t, err)
				hi, err := l.MaxID(at)
				require.NoError(t, err)
				id := mustCompose(t, l, tick, r.Int64N(l.MaxNode()+1), r.Int64N(l.MaxSequence()+1))
				require.True(t, lo <= id && id <= hi)
				next, err := l.MinID(l.TimeOf(tick + 1))
				require.NoError(t, err)
				require.Equal(t, hi+1, next, "ticks are contiguous ranges")
			}
			_, err := l.MinID(l.Spec().Epoch.Add(-time.Nanosecond))
			require.ErrorIs(t, err, generator.ErrTimeOverflow)
			_, err = l.MaxID(l.End())
			require.ErrorIs(t, err, generator.ErrTimeOverflow)
			hi, err := l.MaxID(l.End().Add(-1))
			require.NoError(t, err)
			total := l.Spec().TimeBits + l.Spec().NodeBits + l.Spec().SequenceBits
			assert.Equal(t, types.Snowflake(1<<total-1), hi)
		})
	}
}

func mustCompose(t testing.TB, l generator.Layout, tick, node, seq int64) types.Snowflake {
	t.Helper()
	id, err := l.Compose(tick, node, seq)
	require.NoError(t, err)
	return id
}

func TestZeroLayout(t *testing.T) {
	var l generator.Layout
	assert.True(t, l.IsZero())
	assert.Equal(t, "zero layout", l.String())
	assert.True(t, l.End().IsZero())
	_, err := l.MinID(time.Now())
	require.ErrorIs(t, err, generator.ErrInvalidLayout)
	_, err = l.MaxID(time.Now())
	require.ErrorIs(t, err, generator.ErrInvalidLayout)
}

type goldenVector struct {
	Layout   string `json:"layout"`
	ID       string `json:"id"`
	Time     string `json:"time"`
	Tick     int64  `json:"tick"`
	Node     int64  `json:"node"`
	Sequence int64  `json:"sequence"`
	Note     string `json:"note"`
}

func TestGoldenVectors(t *testing.T) {
	data, err := os.ReadFile("../testdata/snowflake_golden.json")
	require.NoError(t, err)
	var file struct {
		Vectors []goldenVector `json:"vectors"`
	}
	require.NoError(t, json.Unmarshal(data, &file))
	require.NotEmpty(t, file.Vectors)
	layouts := map[string]generator.Layout{
		"twitter": generator.Twitter(), "sonyflake": generator.Sonyflake(), "discord": generator.Discord(),
	}
	seen := map[string]int{}
	for _, v := range file.Vectors {
		t.Run(v.Layout+"/"+v.ID, func(t *testing.T) {
			l, ok := layouts[v.Layout]
			require.True(t, ok, "unknown layout %q", v.Layout)
			seen[v.Layout]++
			n, err := strconv.ParseInt(v.ID, 10, 64)
			require.NoError(t, err)
			id := types.Snowflake(n)

			p, err := l.Decompose(id)
			require.NoError(t, err)
			want := mustTime(t, v.Time)
			assert.True(t, want.Equal(p.Time), "time: want %v, got %v", want, p.Time)
			assert.Equal(t, v.Time, p.Time.Format(time.RFC3339Nano))
			assert.Equal(t, v.Tick, p.Tick, "tick")
			assert.Equal(t, v.Node, p.Node, "node")
			assert.Equal(t, v.Sequence, p.Sequence, "sequence")

			back, err := l.Compose(v.Tick, v.Node, v.Sequence)
			require.NoError(t, err)
			assert.Equal(t, id, back)
			tick, err := l.TickOf(want)
			require.NoError(t, err)
			assert.Equal(t, v.Tick, tick)
			lo, err := l.MinID(want)
			require.NoError(t, err)
			hi, err := l.MaxID(want)
			require.NoError(t, err)
			assert.True(t, lo <= id && id <= hi)
		})
	}
	for name := range layouts {
		assert.GreaterOrEqual(t, seen[name], 2, "golden vectors for %s", name)
	}
}

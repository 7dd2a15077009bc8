package rangesplit_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/internal/rangesplit"
	"github.com/idkit-go/idkit/internal/uuidgen"
	"github.com/idkit-go/idkit/types"
)

// The model's thresholds in the tests: ranges split at 100,000 keys, or
// when they take more than a tenth of a window of 10,000 writes.
const (
	maxKeys = 100_000
	window  = 10_000
	maxLoad = window / 10
	inserts = 1_000_000
	last    = 100_000 // the writes measured: the last 10 windows
)

func TestModelSplits(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine: run without -race (see race_test.go)")
	}
	// Sequential keys: every write goes to the last range, whatever splits.
	m := rangesplit.New(maxKeys, window, maxLoad)
	for i := range uint64(inserts) {
		m.Insert(rangesplit.Key{Hi: i})
	}
	if m.Len() < 16 {
		t.Errorf("sequential keys: %d ranges; want at least 16", m.Len())
	}
	for _, b := range m.Busiest(10) {
		if b != 1 {
			t.Fatalf("sequential keys: busiest range took %.3f of a window; want 1", b)
		}
	}
	// Uniform random keys spread over ranges that split by size and load.
	m = rangesplit.New(maxKeys, window, maxLoad)
	r := rand.New(rand.NewPCG(1, 2))
	for range inserts {
		m.Insert(rangesplit.Key{Hi: r.Uint64()})
	}
	if busiest := slices.Max(m.Busiest(10)); busiest > 1.25/float64(m.Len()) {
		t.Errorf("random keys: busiest range took %.4f of a window over %d ranges", busiest, m.Len())
	}
	// The model is deterministic: a second run splits at the same keys.
	a, b := rangesplit.New(1000, 100, 10), rangesplit.New(1000, 100, 10)
	for i := range uint64(20000) {
		k := rangesplit.Key{Hi: i * 0x9e3779b97f4a7c15}
		a.Insert(k)
		b.Insert(k)
	}
	if a.Len() != b.Len() || !slices.Equal(a.Busiest(1000), b.Busiest(1000)) {
		t.Errorf("two runs differ")
	}
}

// rateClock is a generator.Clock at a steady average rate of one reading
// per step: each reading moves it on by an exponential gap (Poisson
// arrivals), from a fixed seed.
type rateClock struct {
	now  time.Time
	step float64 // mean gap, ns
	r    *rand.Rand
}

func newRateClock(perSecond float64) *rateClock {
	return &rateClock{now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), step: 1e9 / perSecond, r: rand.New(rand.NewPCG(7, 11))}
}

func (c *rateClock) Now() time.Time {
	c.now = c.now.Add(time.Duration(c.r.ExpFloat64() * c.step))
	return c.now
}

func (c *rateClock) Sleep(d time.Duration) { c.now = c.now.Add(d) }

// source makes keys with a real generator at a rate.
type source struct {
	name   string
	form   types.Form
	spread bool // a scatter form
	bound  int  // the shards the form spreads over: the busiest range takes at most 1.25/min(ranges, bound)
	make   func(t *testing.T, f types.Form, perSecond float64) func() rangesplit.Key
}

func snowflakes(t *testing.T, f types.Form, perSecond float64) func() rangesplit.Key {
	g, err := generator.NewSnowflake(37, generator.WithClock(newRateClock(perSecond)), generator.WithForm(f))
	if err != nil {
		t.Fatal(err)
	}
	return func() rangesplit.Key {
		id, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		return rangesplit.Key{Hi: uint64(id)}
	}
}

func objectIDs(t *testing.T, f types.Form, perSecond float64) func() rangesplit.Key {
	g, err := generator.NewObjectID(generator.WithClock(newRateClock(perSecond)), generator.WithForm(f))
	if err != nil {
		t.Fatal(err)
	}
	return func() rangesplit.Key {
		id := g.Next()
		return rangesplit.Key{Hi: binary.BigEndian.Uint64(id[0:8]), Lo: uint64(binary.BigEndian.Uint32(id[8:12])) << 32}
	}
}

func uuids(t *testing.T, f types.Form, perSecond float64) func() rangesplit.Key {
	clk := newRateClock(perSecond)
	g := uuidgen.New(uuidgen.Config{Now: func() int64 { return clk.Now().UnixMilli() }})
	return func() rangesplit.Key {
		id, err := f.UUID(types.UUID(g.Next()))
		if err != nil {
			t.Fatal(err)
		}
		return rangesplit.Key{Hi: binary.BigEndian.Uint64(id[0:8]), Lo: binary.BigEndian.Uint64(id[8:16])}
	}
}

// TestFormsSpreadWrites inserts 1,000,000 keys made by the real generators,
// at 10 IDs a second (every Snowflake sequence 0) and at 5,000, into the
// model, and measures the share of each of the last 10 windows of writes
// that the busiest range took: at most 1.25/N over N ranges for the
// bit-reversed and bucket (shard:8 of an ObjectID or UUID) forms, at most
// 1.25/min(N, 2^S) for S shard bits, and at least 0.9 for the ordered IDs.
func TestFormsSpreadWrites(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine: run without -race (see race_test.go)")
	}
	sources := []source{
		{"snowflake", types.Form{}, false, 0, snowflakes},
		{"snowflake", types.BitReversed(), true, 1 << 62, snowflakes},
		{"snowflake", types.ShardBits(4), true, 16, snowflakes},
		{"snowflake", types.ShardBits(2), true, 4, snowflakes},
		{"snowflake", types.ShardBits(8), true, 256, snowflakes},
		{"objectid", types.Form{}, false, 0, objectIDs},
		{"objectid", types.ShardBits(8), true, 256, objectIDs},
		{"uuid", types.Form{}, false, 0, uuids},
		{"uuid", types.ShardBits(8), true, 256, uuids},
	}
	for _, rate := range []float64{10, 5000} {
		for _, s := range sources {
			t.Run(fmt.Sprintf("%s/%s/%g per s", s.name, s.form, rate), func(t *testing.T) {
				t.Parallel()
				next := s.make(t, s.form, rate)
				m := rangesplit.New(maxKeys, window, maxLoad)
				for range inserts {
					m.Insert(next())
				}
				n := m.Len()
				busiest := slices.Max(m.Busiest(last / window))
				t.Logf("%d ranges; the busiest took %.4f of a window (1/N = %.4f)", n, busiest, 1/float64(n))
				switch {
				case n < 16:
					t.Errorf("%d ranges; want at least 16", n)
				case s.spread && busiest > 1.25/float64(min(n, s.bound)):
					t.Errorf("busiest range took %.4f of a window over %d ranges; want at most 1.25/%d", busiest, n, min(n, s.bound))
				case !s.spread && busiest < 0.9:
					t.Errorf("ordered IDs: busiest range took %.4f; want at least 0.9", busiest)
				}
			})
		}
	}
}

package generator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
)

// WithRandomSequenceStart's doc: a new tick starts below half the sequence
// range; a tick borrowed ahead of the clock starts at 0, and a tick reached
// after a wait starts at random.
func TestClaimRandomSequenceStartBounds(t *testing.T) {
	l, err := generator.NewLayout(generator.LayoutSpec{TimeBits: 41, NodeBits: 10, SequenceBits: 4,
		Unit: time.Millisecond, Epoch: generator.Twitter().Spec().Epoch})
	require.NoError(t, err)
	for name, borrow := range map[string]time.Duration{"wait": 0, "borrow": time.Second} {
		t.Run(name, func(t *testing.T) {
			clock := generatortest.NewFakeClock(sfBase)
			g, err := generator.NewSnowflake(3, generator.WithLayout(l), generator.WithClock(clock),
				generator.WithRandomSequenceStart(), generator.WithBorrowAhead(borrow))
			require.NoError(t, err)
			first := map[int64]int64{} // tick -> first sequence
			for range 2000 {
				p, err := l.Decompose(g.MustNext())
				require.NoError(t, err)
				if _, ok := first[p.Tick]; !ok {
					first[p.Tick] = p.Sequence
				}
			}
			// The clock moves only while Next waits: every tick after the
			// first is borrowed ahead (borrow) or reached after a wait.
			startTick := int64(-1)
			for tick, seq := range first {
				if startTick < 0 || tick < startTick {
					startTick = tick
				}
				assert.Less(t, seq, int64(8), "tick %d starts at %d", tick, seq)
			}
			nonzero := 0
			for tick, seq := range first {
				if tick == startTick {
					continue
				}
				if seq != 0 {
					nonzero++
				}
				if name == "borrow" {
					assert.Zero(t, seq, "tick %d borrowed ahead starts at %d", tick, seq)
				}
			}
			if name == "wait" { // each tick reached after a wait starts at random
				assert.Greater(t, nonzero, len(first)/2, "ticks %d", len(first))
			}
		})
	}
}

// WithRandomSequenceStart's doc: with Sonyflake order the low bits are the
// node's and do not spread; a 1-bit sequence has nothing to spread.
func TestClaimRandomSequenceStartNoSpread(t *testing.T) {
	t.Run("sonyflake order", func(t *testing.T) {
		clock := generatortest.NewFakeClock(sfBase)
		g, err := generator.NewSnowflake(5, generator.WithLayout(generator.Sonyflake()), generator.WithClock(clock),
			generator.WithRandomSequenceStart())
		require.NoError(t, err)
		for range 100 {
			assert.EqualValues(t, 5, g.MustNext()%256)
			clock.Add(100 * time.Millisecond)
		}
	})
	t.Run("1-bit sequence", func(t *testing.T) {
		l, err := generator.NewLayout(generator.LayoutSpec{TimeBits: 41, NodeBits: 10, SequenceBits: 1,
			Unit: time.Millisecond, Epoch: generator.Twitter().Spec().Epoch})
		require.NoError(t, err)
		clock := generatortest.NewFakeClock(sfBase)
		g, err := generator.NewSnowflake(5, generator.WithLayout(l), generator.WithClock(clock),
			generator.WithRandomSequenceStart())
		require.NoError(t, err)
		for range 100 {
			p, err := l.Decompose(g.MustNext())
			require.NoError(t, err)
			assert.Zero(t, p.Sequence)
			clock.Add(100 * time.Millisecond)
		}
	})
}

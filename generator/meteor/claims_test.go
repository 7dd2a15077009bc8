package meteor_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/generator/meteor"
	"github.com/idkit-go/idkit/types"
)

// The presets cannot be reassigned.
var _ func() meteor.Layout = meteor.Default

// counterOf is the counter value an ID was made from, as the Generator doc
// says: Seconds*PerSecond + Sequence.
func counterOf(t *testing.T, l meteor.Layout, id int64) int64 {
	t.Helper()
	p, err := l.Decompose(idOf(id))
	require.NoError(t, err)
	return p.Seconds*l.PerSecond() + p.Sequence
}

func TestCountIsReadableFromTwoIDs(t *testing.T) {
	t.Parallel()
	g, err := meteor.New(77, meteor.Default())
	require.NoError(t, err)
	first := g.MustNext()
	var last int64
	for range 4999 {
		last = int64(g.MustNext())
	}
	assert.Equal(t, int64(4999), counterOf(t, g.Layout(), last)-counterOf(t, g.Layout(), int64(first)))
}

func TestConsecutiveGapsWithinBounds(t *testing.T) {
	t.Parallel()
	g, err := meteor.NewSeeded(1, meteor.Default(), 3)
	require.NoError(t, err)
	l := g.Layout()
	maxGap := int64(1)<<(l.Spec().RandomBits+1) - 1
	prev := g.MustNext()
	for range 5000 {
		id := g.MustNext()
		pp, _ := l.Decompose(prev)
		p, _ := l.Decompose(id)
		if p.Seconds == pp.Seconds {
			gap := int64(id - prev)
			require.True(t, gap >= 1 && gap <= maxGap, "gap %d", gap)
		}
		prev = id
	}
}

func TestDefaultLayoutClaims(t *testing.T) {
	t.Parallel()
	l := meteor.Default()
	assert.Equal(t, meteor.LayoutSpec{TimeBits: 31, NodeBits: 18, SequenceBits: 11, RandomBits: 3,
		Epoch: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}, l.Spec())
	assert.Equal(t, time.Date(2093, 1, 19, 3, 14, 8, 0, time.UTC), l.End())
	assert.Equal(t, int64(262143), l.MaxNode())
	assert.Equal(t, int64(2048), l.PerSecond())
	assert.Equal(t, "meteor(31/18/11/3, epoch 2025-01-01T00:00:00Z)", l.String())
	g, err := meteor.New(1, l, generator.WithClock(generatortest.NewFakeClock(l.Spec().Epoch.Add(time.Hour))))
	require.NoError(t, err)
	assert.Equal(t, l, g.Layout())
}

func TestNextDoesNotAllocate(t *testing.T) {
	g, err := meteor.New(1, meteor.Default())
	require.NoError(t, err)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { g.MustNext() }))
}

func TestNilOptionIgnored(t *testing.T) {
	t.Parallel()
	g, err := meteor.New(1, meteor.Default(), nil)
	require.NoError(t, err)
	_, err = g.Next()
	require.NoError(t, err)
}

func idOf(v int64) types.Snowflake { return types.Snowflake(v) }

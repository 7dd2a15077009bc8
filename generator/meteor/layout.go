package meteor

import (
	"fmt"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// Layout is the bit layout of a Meteor ID, from the top: 0 | time | node |
// sequence | random. The time part counts seconds since Epoch: the start
// second plus issued/2^SequenceBits. The zero Layout is not usable.
type Layout struct {
	timeBits, nodeBits, seqBits, randBits uint8
	epoch                                 time.Time
}

// LayoutSpec describes a [Layout]: TimeBits (at most 40), NodeBits and
// SequenceBits at least 1, RandomBits at most 8, at most 63 in all, and a
// non-zero Epoch.
type LayoutSpec struct {
	TimeBits, NodeBits, SequenceBits, RandomBits uint8
	Epoch                                        time.Time
}

var defaultLayout = mustLayout(LayoutSpec{TimeBits: 31, NodeBits: 18, SequenceBits: 11, RandomBits: 3,
	Epoch: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})

// Default returns the Meteor scheme's layout: 31 bits of seconds since
// 2025-01-01 (until 2093-01-19), an 18-bit node, an 11-bit sequence (2048
// IDs a second) and 3 random bits.
func Default() Layout { return defaultLayout }

func mustLayout(s LayoutSpec) Layout {
	l, err := NewLayout(s)
	if err != nil {
		panic(err)
	}
	return l
}

// NewLayout returns spec's [Layout], or an error wrapping
// [generator.ErrInvalidLayout].
func NewLayout(spec LayoutSpec) (Layout, error) {
	switch {
	case spec.TimeBits < 1 || spec.NodeBits < 1 || spec.SequenceBits < 1:
		return Layout{}, fmt.Errorf("%w: time, node and sequence bits must be at least 1", generator.ErrInvalidLayout)
	case spec.RandomBits > 8:
		return Layout{}, fmt.Errorf("%w: %d random bits above 8", generator.ErrInvalidLayout, spec.RandomBits)
	case spec.TimeBits > 40:
		return Layout{}, fmt.Errorf("%w: %d time bits above 40", generator.ErrInvalidLayout, spec.TimeBits)
	case int(spec.TimeBits)+int(spec.NodeBits)+int(spec.SequenceBits)+int(spec.RandomBits) > 63:
		return Layout{}, fmt.Errorf("%w: %d+%d+%d+%d bits exceed 63", generator.ErrInvalidLayout,
			spec.TimeBits, spec.NodeBits, spec.SequenceBits, spec.RandomBits)
	case spec.Epoch.IsZero():
		return Layout{}, fmt.Errorf("%w: zero epoch", generator.ErrInvalidLayout)
	}
	return Layout{spec.TimeBits, spec.NodeBits, spec.SequenceBits, spec.RandomBits, spec.Epoch.Truncate(time.Second).UTC()}, nil
}

// Spec returns the [LayoutSpec] of l (epoch in UTC).
func (l Layout) Spec() LayoutSpec {
	return LayoutSpec{l.timeBits, l.nodeBits, l.seqBits, l.randBits, l.epoch}
}

// IsZero reports whether l is the zero Layout.
func (l Layout) IsZero() bool { return l.timeBits == 0 }

// MaxNode returns the largest node ID, 2^NodeBits-1.
func (l Layout) MaxNode() int64 { return 1<<l.nodeBits - 1 }

// PerSecond returns 2^SequenceBits, the IDs one second of time part holds.
func (l Layout) PerSecond() int64 { return 1 << l.seqBits }

// End returns the first second the time part cannot hold.
func (l Layout) End() time.Time { return l.epoch.Add(time.Duration(1<<l.timeBits) * time.Second) }

// String describes l, as "meteor(31/18/11/3, epoch 2025-01-01T00:00:00Z)".
func (l Layout) String() string {
	return fmt.Sprintf("meteor(%d/%d/%d/%d, epoch %s)", l.timeBits, l.nodeBits, l.seqBits, l.randBits, l.epoch.Format(time.RFC3339))
}

// Parts are the fields of a Meteor ID. Time is epoch + Seconds.
type Parts struct {
	Time     time.Time
	Seconds  int64
	Node     int64
	Sequence int64
	Random   int64
}

// Decompose splits id into its fields, or returns an error wrapping
// [generator.ErrInvalidID] for an id that does not fit.
func (l Layout) Decompose(id types.Snowflake) (Parts, error) {
	if l.IsZero() {
		return Parts{}, fmt.Errorf("%w: zero layout", generator.ErrInvalidLayout)
	}
	v := int64(id)
	total := l.timeBits + l.nodeBits + l.seqBits + l.randBits
	if v < 0 || (total < 63 && v>>total != 0) {
		return Parts{}, fmt.Errorf("%w: %d does not fit %d bits", generator.ErrInvalidID, v, total)
	}
	secs := v >> (l.nodeBits + l.seqBits + l.randBits)
	return Parts{
		Time:     l.epoch.Add(time.Duration(secs) * time.Second),
		Seconds:  secs,
		Node:     v >> (l.seqBits + l.randBits) & l.MaxNode(),
		Sequence: v >> l.randBits & (1<<l.seqBits - 1),
		Random:   v & (1<<l.randBits - 1),
	}, nil
}

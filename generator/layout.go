package generator

import (
	"fmt"
	"math"
	"time"

	"github.com/idkit-go/idkit/types"
)

// Layout is the bit layout of a Snowflake ID: the time (ticks of Unit since
// Epoch) on top, then node and sequence (Twitter order) or sequence and
// node (Sonyflake order), so IDs sort by time and one tick's IDs form the
// range [Layout.MinID, Layout.MaxID]. A Layout is an immutable value; the
// zero Layout is not usable (methods fail with [ErrInvalidLayout]).
type Layout struct {
	name              string
	timeBits          uint8
	nodeBits          uint8
	sequenceBits      uint8
	unit              time.Duration
	epoch             time.Time
	sequenceAboveNode bool
}

// LayoutSpec describes a [Layout] for [NewLayout]. TimeBits and
// SequenceBits are at least 1, the three widths sum to at most 63, Unit is
// positive, 2^TimeBits ticks of Unit fit a [time.Duration] and Epoch is not
// zero. Name defaults to "custom". SequenceAboveNode selects Sonyflake
// order.
type LayoutSpec struct {
	Name              string
	TimeBits          uint8
	NodeBits          uint8
	SequenceBits      uint8
	Unit              time.Duration
	Epoch             time.Time
	SequenceAboveNode bool
}

// NewLayout returns the [Layout] spec describes, or an error wrapping
// [ErrInvalidLayout] that names the rule spec breaks.
func NewLayout(spec LayoutSpec) (Layout, error) {
	switch {
	case spec.TimeBits < 1:
		return Layout{}, fmt.Errorf("%w: time bits must be at least 1", ErrInvalidLayout)
	case spec.SequenceBits < 1:
		return Layout{}, fmt.Errorf("%w: sequence bits must be at least 1", ErrInvalidLayout)
	case int(spec.TimeBits)+int(spec.NodeBits)+int(spec.SequenceBits) > 63:
		return Layout{}, fmt.Errorf("%w: %d time + %d node + %d sequence bits exceed 63",
			ErrInvalidLayout, spec.TimeBits, spec.NodeBits, spec.SequenceBits)
	case spec.Unit <= 0:
		return Layout{}, fmt.Errorf("%w: unit %v must be positive", ErrInvalidLayout, spec.Unit)
	case spec.TimeBits >= 63 || int64(spec.Unit) > math.MaxInt64>>spec.TimeBits:
		return Layout{}, fmt.Errorf("%w: 2^%d ticks of %v do not fit a time.Duration",
			ErrInvalidLayout, spec.TimeBits, spec.Unit)
	case spec.Epoch.IsZero():
		return Layout{}, fmt.Errorf("%w: epoch must not be the zero time", ErrInvalidLayout)
	}
	name := spec.Name
	if name == "" {
		name = "custom"
	}
	return Layout{
		name:              name,
		timeBits:          spec.TimeBits,
		nodeBits:          spec.NodeBits,
		sequenceBits:      spec.SequenceBits,
		unit:              spec.Unit,
		epoch:             spec.Epoch.Round(0).UTC(),
		sequenceAboveNode: spec.SequenceAboveNode,
	}, nil
}

func mustLayout(spec LayoutSpec) Layout {
	l, err := NewLayout(spec)
	if err != nil {
		panic(err)
	}
	return l
}

// The preset layouts are returned by functions rather than held in package
// variables, so that no code can reassign them and change what every other
// caller (and [NewSnowflake]'s default) gets. A [Layout] is a value: derive a
// variant (for example Twitter bits with your own epoch) from [Layout.Spec]
// and [NewLayout].
var (
	twitter = mustLayout(LayoutSpec{
		Name: "twitter", TimeBits: 41, NodeBits: 10, SequenceBits: 12,
		Unit: time.Millisecond, Epoch: time.UnixMilli(1288834974657),
	})
	sonyflake = mustLayout(LayoutSpec{
		Name: "sonyflake", TimeBits: 39, NodeBits: 16, SequenceBits: 8,
		Unit: 10 * time.Millisecond, Epoch: time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC),
		SequenceAboveNode: true,
	})
	discord = mustLayout(LayoutSpec{
		Name: "discord", TimeBits: 41, NodeBits: 10, SequenceBits: 12,
		Unit: time.Millisecond, Epoch: time.UnixMilli(1420070400000),
	})
)

// Twitter returns the original Snowflake layout, [NewSnowflake]'s default:
// 41 bits of ms since 2010-11-04T01:42:54.657Z, a 10-bit node
// (datacenter<<5 | worker), a 12-bit sequence; until 2080-07-10.
func Twitter() Layout { return twitter }

// Sonyflake returns sony/sonyflake's layout: 39 bits of 10 ms since
// 2014-09-01, an 8-bit sequence above a 16-bit machine ID; until 2188-11-16.
func Sonyflake() Layout { return sonyflake }

// Discord returns Discord's layout: Twitter's bits with ms since
// 2015-01-01 and a node of worker<<5 | process.
func Discord() Layout { return discord }

// MaxNode returns 2^NodeBits-1.
func (l Layout) MaxNode() int64 { return 1<<l.nodeBits - 1 }

// MaxSequence returns 2^SequenceBits-1.
func (l Layout) MaxSequence() int64 { return 1<<l.sequenceBits - 1 }

// maxTick returns the largest tick the time field holds, 2^TimeBits-1.
func (l Layout) maxTick() int64 { return 1<<l.timeBits - 1 }

// End returns the first time the layout cannot hold (the zero time for
// the zero Layout).
func (l Layout) End() time.Time {
	if l.IsZero() {
		return time.Time{}
	}
	return l.epoch.Add(time.Duration(1<<l.timeBits) * l.unit)
}

// IsZero reports whether l is the zero Layout.
func (l Layout) IsZero() bool { return l.timeBits == 0 }

// Spec returns the [LayoutSpec] of l (epoch in UTC), from which to derive
// variants.
func (l Layout) Spec() LayoutSpec {
	return LayoutSpec{
		Name: l.name, TimeBits: l.timeBits, NodeBits: l.nodeBits, SequenceBits: l.sequenceBits,
		Unit: l.unit, Epoch: l.epoch, SequenceAboveNode: l.sequenceAboveNode,
	}
}

// String describes l, as "twitter(41/10/12, 1ms, epoch 2010-11-04T01:42:54.657Z)".
func (l Layout) String() string {
	if l.IsZero() {
		return "zero layout"
	}
	order := ""
	if l.sequenceAboveNode {
		order = ", sequence above node"
	}
	return fmt.Sprintf("%s(%d/%d/%d%s, %v, epoch %s)", l.name, l.timeBits, l.nodeBits,
		l.sequenceBits, order, l.unit, l.epoch.Format(time.RFC3339Nano))
}

// Parts are the fields of a Snowflake ID; Time is the start of its Tick.
type Parts struct {
	Time     time.Time
	Tick     int64
	Node     int64
	Sequence int64
}

// shifts returns the bit offsets of the time, node and sequence fields.
func (l Layout) shifts() (timeShift, nodeShift, seqShift uint8) {
	if l.sequenceAboveNode {
		return l.nodeBits + l.sequenceBits, 0, l.nodeBits
	}
	return l.nodeBits + l.sequenceBits, l.sequenceBits, 0
}

// Decompose splits id into its fields under l, the inverse of
// [Layout.Compose]. An id that does not fit gives an error wrapping
// [ErrInvalidID]. id must be an ordered ID: turn a key in a scatter form
// back first with its [types.Form.OrderedSnowflake] (a generator's
// Form method names it), or the fields read are wrong.
func (l Layout) Decompose(id types.Snowflake) (Parts, error) {
	if l.IsZero() {
		return Parts{}, fmt.Errorf("%w: zero layout", ErrInvalidLayout)
	}
	v := int64(id)
	timeShift, nodeShift, seqShift := l.shifts()
	if v < 0 || v>>(timeShift+l.timeBits) != 0 {
		return Parts{}, fmt.Errorf("%w: %d does not fit %d bits of %s",
			ErrInvalidID, v, timeShift+l.timeBits, l.name)
	}
	tick := v >> timeShift
	return Parts{
		Time:     l.timeOf(tick),
		Tick:     tick,
		Node:     v >> nodeShift & l.MaxNode(),
		Sequence: v >> seqShift & l.MaxSequence(),
	}, nil
}

// Compose builds the ID of the given fields; a field out of range gives an
// error wrapping [ErrTimeOverflow], [ErrNodeOutOfRange] or [ErrInvalidID].
func (l Layout) Compose(tick, node, seq int64) (types.Snowflake, error) {
	switch {
	case l.IsZero():
		return 0, fmt.Errorf("%w: zero layout", ErrInvalidLayout)
	case tick < 0 || tick > l.maxTick():
		return 0, fmt.Errorf("%w: tick %d not in [0, %d]", ErrTimeOverflow, tick, l.maxTick())
	case node < 0 || node > l.MaxNode():
		return 0, fmt.Errorf("%w: node %d not in [0, %d]", ErrNodeOutOfRange, node, l.MaxNode())
	case seq < 0 || seq > l.MaxSequence():
		return 0, fmt.Errorf("%w: sequence %d not in [0, %d]", ErrInvalidID, seq, l.MaxSequence())
	}
	timeShift, nodeShift, seqShift := l.shifts()
	return types.Snowflake(tick<<timeShift | node<<nodeShift | seq<<seqShift), nil
}

// tickOf returns the tick that t falls in: whole units since the epoch,
// rounded down. A t before the epoch or at or after [Layout.End] gives an
// error wrapping [ErrTimeOverflow]; the zero Layout one wrapping
// [ErrInvalidLayout].
func (l Layout) tickOf(t time.Time) (int64, error) {
	if l.IsZero() {
		return 0, fmt.Errorf("%w: zero layout", ErrInvalidLayout)
	}
	// Sub saturates, and the span of the time field fits a Duration, so a
	// saturated difference is always out of range rather than wrapped.
	d := t.Sub(l.epoch)
	if d < 0 {
		return 0, fmt.Errorf("%w: %s is before the %s epoch", ErrTimeOverflow,
			t.UTC().Format(time.RFC3339Nano), l.name)
	}
	tick := int64(d / l.unit)
	if tick > l.maxTick() {
		return 0, fmt.Errorf("%w: %s is at or after the %s end %s", ErrTimeOverflow,
			t.UTC().Format(time.RFC3339Nano), l.name, l.End().Format(time.RFC3339Nano))
	}
	return tick, nil
}

// timeOf returns the start of tick, epoch + tick*unit, in UTC. It does not
// validate tick; for ticks outside [0, MaxTick] the result is meaningless.
func (l Layout) timeOf(tick int64) time.Time {
	return l.epoch.Add(time.Duration(tick) * l.unit)
}

// MinID returns the smallest ID of t's tick: IDs made in [from, to) are
// those with MinID(from) <= id < MinID(to). A t outside the layout gives an
// error wrapping [ErrTimeOverflow].
func (l Layout) MinID(t time.Time) (types.Snowflake, error) {
	tick, err := l.tickOf(t)
	if err != nil {
		return 0, err
	}
	timeShift, _, _ := l.shifts()
	return types.Snowflake(tick << timeShift), nil
}

// MaxID returns the largest ID of t's tick; errors as [Layout.MinID].
func (l Layout) MaxID(t time.Time) (types.Snowflake, error) {
	tick, err := l.tickOf(t)
	if err != nil {
		return 0, err
	}
	timeShift, _, _ := l.shifts()
	return types.Snowflake(tick<<timeShift | (1<<timeShift - 1)), nil
}

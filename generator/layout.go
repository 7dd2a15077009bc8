package generator

import (
	"fmt"
	"math"
	"time"

	"github.com/idkit-go/idkit/types"
)

// Layout is the bit layout of a Snowflake ID: how many bits hold the time
// (counted in ticks of Unit since Epoch), the node ID and the sequence, and
// in which order the node and sequence fields sit below the time.
//
// Twitter order, the default, is time | node | sequence (sequence in the low
// bits); Sonyflake order is time | sequence | node. Either way the time is
// the top field, so IDs sort by time and one tick's IDs form a contiguous
// range (see [Layout.MinID] and [Layout.MaxID]).
//
// A Layout is an immutable value, safe for concurrent use; its fields are
// unexported so that no Layout, a preset included, can be altered in place. Build one with
// [NewLayout] or use a preset. The zero Layout is not usable: methods that
// return an error return one wrapping [ErrInvalidLayout] for it.
type Layout struct {
	name              string
	timeBits          uint8
	nodeBits          uint8
	sequenceBits      uint8
	unit              time.Duration
	epoch             time.Time
	sequenceAboveNode bool
}

// LayoutSpec describes a [Layout] for [NewLayout].
//
// TimeBits and SequenceBits must be at least 1; NodeBits may be 0 for a
// single-node scheme. TimeBits+NodeBits+SequenceBits must be at most 63, so
// every ID is a non-negative int64. Unit must be positive and the span of the
// time field, 2^TimeBits ticks of Unit, must fit a [time.Duration] (about 292
// years), so tick arithmetic never overflows. Epoch must not be the zero
// time; it is stored in UTC. Name is used by String and defaults to
// "custom". SequenceAboveNode selects Sonyflake order (time | sequence |
// node) instead of Twitter order (time | node | sequence).
type LayoutSpec struct {
	Name              string
	TimeBits          uint8
	NodeBits          uint8
	SequenceBits      uint8
	Unit              time.Duration
	Epoch             time.Time
	SequenceAboveNode bool
}

// NewLayout validates spec (see [LayoutSpec] for the rules) and returns the
// [Layout] it describes. A spec that breaks a rule gives an error wrapping
// [ErrInvalidLayout] that names the rule.
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

// Twitter returns the original Snowflake layout: 41 bits of milliseconds
// since 2010-11-04T01:42:54.657Z (Unix ms 1288834974657), a 10-bit node
// (a 5-bit datacenter above a 5-bit worker: datacenter<<5 | worker) and a 12-bit
// sequence, in the order time | node | sequence: 4096 IDs per ms per node,
// until 2080-07-10T17:30:30.209Z. It is also bwmarrin/snowflake's default,
// and [NewSnowflake]'s.
func Twitter() Layout { return twitter }

// Sonyflake returns sony/sonyflake's layout: 39 bits of 10 ms units since
// 2014-09-01T00:00:00Z, an 8-bit sequence and a 16-bit machine ID, in the
// order time | sequence | machine: 256 IDs per 10 ms per machine, until
// 2188-11-16T03:28:58.88Z (about 174 years).
func Sonyflake() Layout { return sonyflake }

// Discord returns Discord's snowflake layout: Twitter's bit split with
// milliseconds since 2015-01-01T00:00:00Z (Unix ms 1420070400000). Its 10-bit
// node is Discord's 5-bit internal worker ID above its 5-bit process ID
// (worker<<5 | process).
func Discord() Layout { return discord }

// MaxNode returns the largest node ID the layout holds, 2^NodeBits-1.
func (l Layout) MaxNode() int64 { return 1<<l.nodeBits - 1 }

// MaxSequence returns the largest sequence value, 2^SequenceBits-1.
func (l Layout) MaxSequence() int64 { return 1<<l.sequenceBits - 1 }

// maxTick returns the largest tick the time field holds, 2^TimeBits-1.
func (l Layout) maxTick() int64 { return 1<<l.timeBits - 1 }

// End returns the first time the layout can no longer represent: the start
// of tick 2^TimeBits. Every ID's time is before End. It returns the zero time
// for the zero Layout.
func (l Layout) End() time.Time {
	if l.IsZero() {
		return time.Time{}
	}
	return l.epoch.Add(time.Duration(1<<l.timeBits) * l.unit)
}

// IsZero reports whether l is the zero Layout, which is not usable.
func (l Layout) IsZero() bool { return l.timeBits == 0 }

// Spec returns the [LayoutSpec] that [NewLayout] turns into l: its name,
// field widths, order, unit and epoch (in UTC), and the way to derive
// variants of a layout.
func (l Layout) Spec() LayoutSpec {
	return LayoutSpec{
		Name: l.name, TimeBits: l.timeBits, NodeBits: l.nodeBits, SequenceBits: l.sequenceBits,
		Unit: l.unit, Epoch: l.epoch, SequenceAboveNode: l.sequenceAboveNode,
	}
}

// String describes the layout as name(time/node/sequence bits, unit, epoch),
// for example "twitter(41/10/12, 1ms, epoch 2010-11-04T01:42:54.657Z)";
// Sonyflake order adds "sequence above node" after the bits.
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

// Parts are the fields of a Snowflake ID under a [Layout]. Tick counts units
// since the epoch; Time is the start of that tick, in UTC.
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

// Decompose splits id into its fields under l. A negative id, or one with
// bits set above the layout's fields, gives an error wrapping [ErrInvalidID];
// the zero Layout gives one wrapping [ErrInvalidLayout]. Decompose of a
// valid id never fails: Compose(parts.Tick, parts.Node, parts.Sequence)
// returns id again.
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

// Compose builds the ID with the given fields under l. A tick outside
// [0, 2^TimeBits-1] gives an error wrapping [ErrTimeOverflow], a node outside
// [0, MaxNode] one wrapping [ErrNodeOutOfRange], a seq outside
// [0, MaxSequence] one wrapping [ErrInvalidID], and the zero Layout one
// wrapping [ErrInvalidLayout]. No field is ever masked to fit.
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

// MinID returns the smallest ID of t's tick (node 0, sequence 0). With
// [Layout.MaxID] it turns a time range into a primary-key range: IDs created
// in [from, to) are those with MinID(from) <= id < MinID(to), and the IDs of
// t's tick are those in [MinID(t), MaxID(t)]. A t before the epoch or at
// or after [Layout.End] gives an error wrapping [ErrTimeOverflow]; the zero
// Layout one wrapping [ErrInvalidLayout].
func (l Layout) MinID(t time.Time) (types.Snowflake, error) {
	tick, err := l.tickOf(t)
	if err != nil {
		return 0, err
	}
	timeShift, _, _ := l.shifts()
	return types.Snowflake(tick << timeShift), nil
}

// MaxID returns the largest ID of t's tick (every node and sequence bit set).
// Errors are those of [Layout.MinID].
func (l Layout) MaxID(t time.Time) (types.Snowflake, error) {
	tick, err := l.tickOf(t)
	if err != nil {
		return 0, err
	}
	timeShift, _, _ := l.shifts()
	return types.Snowflake(tick<<timeShift | (1<<timeShift - 1)), nil
}

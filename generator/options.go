package generator

import (
	"time"

	"github.com/idkit-go/idkit/generator/internal/hook"
)

// SnowflakeOption configures [NewSnowflake]. The With functions of this
// package return one; an option that only an [ObjectID] generator takes is
// no SnowflakeOption, so passing one to NewSnowflake does not compile.
//
// Options apply in order; a later option overrides an earlier one of the
// same kind, and a nil option is ignored. An option never fails nor panics:
// the constructor returns an error wrapping [ErrInvalidConfig] (or the
// more specific sentinel the option names) for an unusable value.
type SnowflakeOption interface{ applySnowflake(*config) }

// ObjectIDOption configures [NewObjectID]: [WithClock], [WithPerCPUBlocks],
// [WithProcessUnique] and [WithWorkerID]. Options apply as for
// [SnowflakeOption].
type ObjectIDOption interface{ applyObjectID(*config) }

// SharedOption is an option every generator takes with the same meaning
// ([NewSnowflake], [NewObjectID] and
// [github.com/idkit-go/idkit/generator/meteor.New]): [WithClock] and
// [WithPerCPUBlocks].
type SharedOption interface {
	SnowflakeOption
	ObjectIDOption
}

// config holds every generator's settings.
type config struct {
	layout       Layout
	clock        Clock
	clockSet     bool
	borrowAhead  time.Duration
	tolerance    time.Duration
	notBefore    time.Time
	fence        func() error
	block        int
	randomStart  bool
	unique       *[5]byte
	worker       *int64
	counterStart *uint32
}

type (
	snowflakeOption func(*config)
	objectIDOption  func(*config)
	sharedOption    func(*config)
)

func (o snowflakeOption) applySnowflake(c *config) { o(c) }
func (o objectIDOption) applyObjectID(c *config)   { o(c) }
func (o sharedOption) applySnowflake(c *config)    { o(c) }
func (o sharedOption) applyObjectID(c *config)     { o(c) }

func init() {
	hook.WithFence = func(f func() error) any { return withFence(f) }
	hook.WithNotBefore = func(t time.Time) any { return withNotBefore(t) }
	hook.LastTime = func(g any) time.Time { return g.(*Snowflake).lastTime() }
	hook.Rebind = rebindSnowflake
	hook.Shared = func(opts any) (any, int) {
		c := config{clock: SystemClock(), block: 1}
		for _, o := range opts.([]SharedOption) {
			if o != nil {
				o.applySnowflake(&c)
			}
		}
		if c.clock == nil {
			return nil, c.block // not a nil Clock in an any
		}
		return c.clock, c.block
	}
}

// MaxPerCPUBlock is the largest block [WithPerCPUBlocks] accepts.
const MaxPerCPUBlock = 1 << 16

// WithClock sets the generator's time source; the default is [SystemClock].
// A [Snowflake] generator reads it for every ID's tick and sleeps on it when
// it must wait for a later tick; an [ObjectID] generator reads its second
// and sleeps on it when one second's counter values are used up. The
// constructor rejects a nil clock with [ErrInvalidConfig].
func WithClock(clock Clock) SharedOption {
	return sharedOption(func(c *config) { c.clock, c.clockSet = clock, true })
}

// WithPerCPUBlocks makes each P (the Go scheduler's processor, one per core
// at the default GOMAXPROCS) reserve n values at a time (Snowflake sequence
// values, ObjectID counter values) instead of one, so Next on many cores
// does not contend on the generator's one shared word: Next then touches
// memory of its own P only, except once every n IDs. A P created after the
// generator (GOMAXPROCS grew) takes one value at a time.
//
// IDs stay unique, but they are increasing only within a block: an ID can
// be smaller than one returned earlier from another P's block (also to the
// same goroutine, after it moved to another P). Without this option both
// generators give IDs in the order Next returns them, across goroutines
// (an ObjectID generator within each second).
//
// For a [Snowflake] generator every guarantee of clock, floor and fence
// holds; a block is dropped, its values unused, once the clock has passed
// its tick, so without [WithBorrowAhead] each tick may lose up to n values
// per P of its sequence; it pays off with borrowing, where the sequence is
// not the limit. For an [ObjectID] generator, values left in blocks when a
// second ends are skipped; with a fixed process-unique value a second then
// holds up to n values per P fewer than 2^24 IDs.
//
// n = 1 keeps the default; the constructor rejects n outside
// [1, MaxPerCPUBlock] with [ErrInvalidConfig].
func WithPerCPUBlocks(n int) SharedOption {
	return sharedOption(func(c *config) { c.block = n })
}

// WithLayout sets a [Snowflake] generator's bit layout; the default is
// [Twitter]. The layout is copied. NewSnowflake rejects the zero Layout with
// [ErrInvalidLayout].
func WithLayout(l Layout) SnowflakeOption {
	return snowflakeOption(func(c *config) { c.layout = l })
}

// WithBorrowAhead sets a [Snowflake] generator's policy for sequence
// exhaustion. With 0, the default, Next waits (sleeps on the clock) for the
// next tick when the current tick's sequence is used up. With max > 0, Next
// goes on issuing IDs from later ticks, up to max (rounded down to whole
// ticks) ahead of the clock, and waits only when that bound is reached; a
// burst then costs no latency, at the price of ID times up to max in the
// future. NewSnowflake rejects a negative max with [ErrInvalidConfig].
func WithBorrowAhead(max time.Duration) SnowflakeOption {
	return snowflakeOption(func(c *config) { c.borrowAhead = max })
}

// WithBackwardTolerance sets how far a [Snowflake] generator's clock may
// read behind the last issued tick (beyond any borrow-ahead allowance)
// before Next fails with [ErrClockMovedBackwards]; the default is
// [DefaultBackwardTolerance]. d is rounded up to whole ticks. Within the
// tolerance, Next keeps issuing from the last issued tick, continuing its
// sequence; when that runs out it borrows or waits as [WithBorrowAhead]
// says, so it waits at most about d. Beyond the tolerance Next fails at
// once, without waiting; once the clock has caught up, Next succeeds again
// with IDs above all earlier ones. With d = 0 any step back beyond the
// borrow-ahead allowance fails. NewSnowflake rejects a negative d with
// [ErrInvalidConfig].
func WithBackwardTolerance(d time.Duration) SnowflakeOption {
	return snowflakeOption(func(c *config) { c.tolerance = d })
}

// withNotBefore sets the floor of a generator wired to a lease; see
// hook.WithNotBefore.
func withNotBefore(t time.Time) SnowflakeOption {
	return snowflakeOption(func(c *config) {
		if t.After(c.notBefore) {
			c.notBefore = t
		}
	})
}

// withFence sets the fence of a generator wired to a lease; see
// hook.WithFence.
func withFence(f func() error) SnowflakeOption {
	return snowflakeOption(func(c *config) {
		switch prev := c.fence; {
		case f == nil:
		case prev == nil:
			c.fence = f
		default:
			c.fence = func() error {
				if err := prev(); err != nil {
					return err
				}
				return f()
			}
		}
	})
}

// WithRandomSequenceStart makes a [Snowflake] generator start each new tick
// at a random sequence value below half the sequence range (below 2048 with
// [Twitter]) instead of at 0. At low traffic, where most ticks carry one ID,
// the sequence field (the low bits in Twitter order) then spreads evenly,
// so sharding by id % n does not put every row on one shard. Only the
// first ID of a tick is random; the rest of the tick follows it, and IDs
// stay unique and increasing in the order Next returns them.
//
// The cost is capacity: a tick holds between half and all of its
// 2^SequenceBits values (at least 2048 per millisecond with Twitter). When
// a tick's remaining values are used up, Next waits or borrows ahead as
// [WithBorrowAhead] says, exactly as without the option; a tick borrowed
// ahead of the clock (entered by running out of the previous one) starts at
// 0, and a tick reached after a wait starts at random like any other. With
// [Sonyflake] order the sequence sits above the node, so the low bits are
// the node's and do not spread. A 1-bit sequence has nothing to spread.
func WithRandomSequenceStart() SnowflakeOption {
	return snowflakeOption(func(c *config) { c.randomStart = true })
}

// WithProcessUnique sets an [ObjectID] generator's 5-byte process-unique
// value (bytes 4 to 8 of every ID) instead of a random one. Two generators
// with the same value running at the same time can make the same ID. It
// overrides an earlier [WithWorkerID].
func WithProcessUnique(v [5]byte) ObjectIDOption {
	return objectIDOption(func(c *config) { c.unique, c.worker = &v, nil })
}

// MaxObjectIDWorker is the largest worker ID accepted by [WithWorkerID].
const MaxObjectIDWorker = 1<<40 - 1

// WithWorkerID derives an [ObjectID] generator's 5-byte process-unique value
// from a worker ID that the caller holds exclusively (for example from a
// lease): the ID's big-endian 40 bits. It makes the value unique by
// assignment rather than by chance. NewObjectID rejects an ID outside
// [0, MaxObjectIDWorker] with [ErrNodeOutOfRange]. It overrides an earlier
// [WithProcessUnique].
func WithWorkerID(id int64) ObjectIDOption {
	return objectIDOption(func(c *config) { c.worker, c.unique = &id, nil })
}

// withCounterStart sets an [ObjectID] generator's first counter value (taken
// mod 2^24) instead of a random one, for this package's tests of counter
// wrap-around (export_test.go).
func withCounterStart(start uint32) ObjectIDOption {
	return objectIDOption(func(c *config) { c.counterStart = &start })
}

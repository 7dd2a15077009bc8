package generator

import (
	"time"

	"github.com/idkit-go/idkit/generator/internal/wiring"
)

// SnowflakeOption configures [NewSnowflake]. The With functions of this
// package return one; an option that only an [ObjectID] generator takes is
// no SnowflakeOption, so passing one to NewSnowflake does not compile. Its
// method is internal: only this package and package node (which wires a
// generator to a lease) make them.
//
// Options apply in order; a later option overrides an earlier one of the
// same kind, and a nil option is ignored. An option never fails nor panics:
// the constructor returns an error wrapping [ErrInvalidConfig] (or the
// more specific sentinel the option names) for an unusable value.
type SnowflakeOption interface{ wiring.Option }

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

// The options of this package. A SnowflakeOption is a wiring.Option: one
// of these, or a wiring.Lease or wiring.Settings of package node or meteor,
// which NewSnowflake tells apart by type (applySnowflake).
type (
	snowflakeOption struct {
		wiring.Sealed
		f func(*config)
	}
	objectIDOption func(*config)
	sharedOption   struct {
		wiring.Sealed
		f func(*config)
	}
)

func (o objectIDOption) applyObjectID(c *config) { o(c) }
func (o sharedOption) applyObjectID(c *config)   { o.f(c) }

// applySnowflake applies opts to c in order, ignoring nil options, and
// returns the wiring.Lease and wiring.Settings options among them, after
// applying the fences and floors of the former.
func applySnowflake(c *config, opts []SnowflakeOption) (leases []*wiring.Lease, settings []*wiring.Settings) {
	for _, o := range opts {
		switch o := o.(type) {
		case snowflakeOption:
			o.f(c)
		case sharedOption:
			o.f(c)
		case *wiring.Lease:
			if o != nil {
				c.addFence(o.Fence)
				if o.NotBefore.After(c.notBefore) {
					c.notBefore = o.NotBefore
				}
				leases = append(leases, o)
			}
		case *wiring.Settings:
			if o != nil {
				settings = append(settings, o)
			}
		}
	}
	return leases, settings
}

// maxPerCPUBlock is the largest block [WithPerCPUBlocks] accepts.
const maxPerCPUBlock = 1 << 16

// WithClock sets the generator's time source; the default is [SystemClock].
// The constructor rejects a nil clock with [ErrInvalidConfig].
func WithClock(clock Clock) SharedOption {
	return sharedOption{f: func(c *config) { c.clock, c.clockSet = clock, true }}
}

// WithPerCPUBlocks makes each P (scheduler processor) reserve n values at a
// time, so Next scales with cores. IDs stay unique but increase only within
// a block; unused values of a block can be skipped (see
// https://github.com/idkit-go/idkit/blob/main/docs/generators.md). n = 1 is
// the default; n outside [1, 65536] gives [ErrInvalidConfig].
func WithPerCPUBlocks(n int) SharedOption {
	return sharedOption{f: func(c *config) { c.block = n }}
}

// WithLayout sets a [Snowflake] generator's layout; the default is
// [Twitter]. The zero Layout gives [ErrInvalidLayout].
func WithLayout(l Layout) SnowflakeOption {
	return snowflakeOption{f: func(c *config) { c.layout = l }}
}

// WithBorrowAhead lets Next, when a tick's sequence is used up, issue from
// later ticks up to max ahead of the clock instead of waiting (the
// default, max = 0). A negative max gives [ErrInvalidConfig].
func WithBorrowAhead(max time.Duration) SnowflakeOption {
	return snowflakeOption{f: func(c *config) { c.borrowAhead = max }}
}

// WithBackwardTolerance sets how far the clock may read behind the last
// issued tick (beyond borrow-ahead) while Next keeps issuing from that tick,
// waiting at most about d; further behind, Next fails at once with
// [ErrClockMovedBackwards]. The default is 10 ms; a
// negative d gives [ErrInvalidConfig].
func WithBackwardTolerance(d time.Duration) SnowflakeOption {
	return snowflakeOption{f: func(c *config) { c.tolerance = d }}
}

// addFence adds f (if not nil) to c's fences, checked after the earlier
// ones.
func (c *config) addFence(f func() error) {
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
}

// WithRandomSequenceStart starts each new tick at a random sequence value
// below half the range instead of 0, so that id % n spreads at low traffic
// (in Twitter order). A tick then holds at least half its usual count.
func WithRandomSequenceStart() SnowflakeOption {
	return snowflakeOption{f: func(c *config) { c.randomStart = true }}
}

// WithProcessUnique sets an [ObjectID] generator's process-unique value
// (bytes 4 to 8) instead of a random one; two generators with one value
// can make the same ID.
func WithProcessUnique(v [5]byte) ObjectIDOption {
	return objectIDOption(func(c *config) { c.unique, c.worker = &v, nil })
}

// maxObjectIDWorker is the largest ID [WithWorkerID] takes.
const maxObjectIDWorker = 1<<40 - 1

// WithWorkerID sets an [ObjectID] generator's process-unique value to the
// 40 bits of a worker ID the caller holds exclusively. An ID outside
// [0, 2^40-1] gives [ErrNodeOutOfRange].
func WithWorkerID(id int64) ObjectIDOption {
	return objectIDOption(func(c *config) { c.worker, c.unique = &id, nil })
}

package generator

import (
	"fmt"
	"time"

	"github.com/idkit-go/idkit/internal/objectidgen"
	"github.com/idkit-go/idkit/types"
)

// ObjectID is a generator of MongoDB ObjectIDs: a 4-byte Unix second, a
// 5-byte process-unique value and a 3-byte counter that starts at a random
// value. It is safe for concurrent use.
//
// Order: by default IDs from one generator rise in the order Next returns
// them within each second, across goroutines, as mongo-driver's and xid's
// do, except where the 3-byte counter wraps from ffffff to 000000 (it starts
// at a random value, so that happens once in 2^24 IDs, as with those
// peers); [WithPerCPUBlocks] trades that order for throughput on many
// cores.
// Across seconds IDs rise with the second, which never goes backwards: when
// the system clock is set back, IDs keep the last second used until the
// clock passes it again.
//
// Uniqueness within the generator: the counter values used in one second
// form a window of 2^24 consecutive values, so one second never repeats a
// counter. When a second's window is used up, Next sleeps until the clock
// shows the next second (no lock is held while it sleeps) rather than wrap,
// as mongo-driver does silently.
//
// On the system clock the second is read through a shared coarse clock:
// while IDs come fast (a thousand or more in one second) a goroutine waking
// once a second publishes it and a read is an atomic load, so the
// timestamp may lag the wall clock by the timer latency, typically well
// under a millisecond, after each second boundary; the goroutine stops
// itself after a second with fewer reads, and below that rate a read reads
// the wall clock directly.
type ObjectID struct {
	g *objectidgen.Generator
}

// objectIDOptions are the options [NewObjectID] accepts.
const objectIDOptions = optClock | optBlocks | optUnique | optCounterStart

// NewObjectID returns an ObjectID generator configured by opts: by default a
// random process-unique value and counter start, the system clock and strict
// order (no per-CPU blocks). It accepts [WithClock], [WithPerCPUBlocks],
// [WithProcessUnique], [WithWorkerID] and [WithCounterStart]; nil options are
// ignored.
//
// It returns an error wrapping [ErrNodeOutOfRange] for a [WithWorkerID]
// outside [0, MaxObjectIDWorker], and [ErrInvalidOption] for a nil clock, a
// per-CPU block outside [1, MaxPerCPUBlock] or an option meant for the
// Snowflake generator (such as [WithLayout]).
func NewObjectID(opts ...Option) (*ObjectID, error) {
	cfg := config{block: 1}
	if name := cfg.apply(opts, objectIDOptions); name != "" {
		return nil, fmt.Errorf("%w: %s does not apply to an ObjectID generator", ErrInvalidOption, name)
	}
	var c objectidgen.Config
	switch {
	case cfg.set&optClock != 0 && cfg.clock == nil:
		return nil, fmt.Errorf("%w: nil clock", ErrInvalidOption)
	case cfg.block < 1 || cfg.block > MaxPerCPUBlock:
		return nil, fmt.Errorf("%w: per-CPU block of %d not in [1, %d]", ErrInvalidOption, cfg.block, MaxPerCPUBlock)
	case cfg.worker != nil && (*cfg.worker < 0 || *cfg.worker > MaxObjectIDWorker):
		return nil, fmt.Errorf("%w: ObjectID worker %d not in [0, %d]", ErrNodeOutOfRange, *cfg.worker, int64(MaxObjectIDWorker))
	}
	if clk := cfg.clock; clk != nil {
		if _, system := clk.(systemClock); !system { // the system clock: the coarse default
			c.Now = func() int64 { return clk.Now().Unix() }
			c.WaitUntil = func(second int64) {
				if d := time.Unix(second, 0).Sub(clk.Now()); d > 0 {
					clk.Sleep(d)
				}
			}
		}
	}
	c.Unique = cfg.unique
	if id := cfg.worker; id != nil {
		c.Unique = &[5]byte{byte(*id >> 32), byte(*id >> 24), byte(*id >> 16), byte(*id >> 8), byte(*id)}
	}
	c.CounterStart = cfg.counterStart
	c.Block = cfg.block // Config.Block: 1 is strict process-wide order, n > 1 per-P blocks of n
	return &ObjectID{g: objectidgen.New(c)}, nil
}

// DefaultObjectID returns the process-wide generator used by
// [types.NewObjectID]. It is safe for concurrent use.
func DefaultObjectID() *ObjectID {
	return &ObjectID{g: objectidgen.Default()}
}

// Next returns a new ObjectID. It may sleep until the next second when the
// current second's 2^24 counter values are used up; it never fails.
func (g *ObjectID) Next() types.ObjectID {
	return types.ObjectID(g.g.Next())
}

// ProcessUnique returns the generator's 5-byte process-unique value.
func (g *ObjectID) ProcessUnique() [5]byte { return g.g.Unique() }

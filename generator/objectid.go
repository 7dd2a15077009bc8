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
// them, across goroutines, as mongo-driver's and xid's do within a second;
// unlike theirs, the last 8 bytes (process-unique value and counter) rise
// as one number that never wraps to a smaller value within a second.
// [WithPerCPUBlocks] trades that order for throughput on many cores: IDs
// then rise only within one P's block. Across seconds IDs rise
// with the second, which never goes backwards: when the system clock is set
// back, IDs keep the last second used until the clock passes it again.
//
// Uniqueness and capacity: the process-unique value (bytes 4 to 8) and the
// counter (bytes 9 to 11) are one 8-byte number that rises with every ID of
// a second. With a random process-unique value (the default) a counter that
// reaches ffffff carries into it, so IDs made later in that second hold the
// value plus 1, and Next never waits, however many IDs a second takes; the
// next second starts again from the original value. (A random value so
// close to ffffffffff that the second's carries pass it, a chance of about
// 1 in 2^40 per carry, carries into 0000000000: the 8-byte number then wraps
// once in that second.) With a fixed value
// ([WithWorkerID], [WithProcessUnique]) the value never changes: when the
// counter reaches ffffff, Next sleeps until the clock shows the next second
// (no lock is held while it sleeps) rather than wrap, as mongo-driver does
// silently, so such a second holds at most 2^24 IDs.
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

// NewObjectID returns an ObjectID generator configured by opts: by default a
// random process-unique value and counter start, the system clock and strict
// order (no per-CPU blocks). It accepts [WithClock], [WithPerCPUBlocks],
// [WithProcessUnique] and [WithWorkerID]; nil options are ignored.
//
// It returns an error wrapping [ErrNodeOutOfRange] for a [WithWorkerID]
// outside [0, MaxObjectIDWorker], and [ErrInvalidConfig] for a nil clock or
// a per-CPU block outside [1, MaxPerCPUBlock].
func NewObjectID(opts ...ObjectIDOption) (*ObjectID, error) {
	cfg := config{block: 1}
	for _, o := range opts {
		if o != nil {
			o.applyObjectID(&cfg)
		}
	}
	var c objectidgen.Config
	switch {
	case cfg.clockSet && cfg.clock == nil:
		return nil, fmt.Errorf("%w: nil clock", ErrInvalidConfig)
	case cfg.block < 1 || cfg.block > MaxPerCPUBlock:
		return nil, fmt.Errorf("%w: per-CPU block of %d not in [1, %d]", ErrInvalidConfig, cfg.block, MaxPerCPUBlock)
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

// Next returns a new ObjectID; it never fails. With a fixed process-unique
// value ([WithWorkerID], [WithProcessUnique]) it may sleep until the next
// second when the counter of the current second is used up; with a random
// one it never sleeps.
func (g *ObjectID) Next() types.ObjectID {
	return types.ObjectID(g.g.Next())
}

// ProcessUnique returns the generator's 5-byte process-unique value. With a
// random value, IDs made after the counter carried within a second hold this
// value plus the number of carries (see [ObjectID]).
func (g *ObjectID) ProcessUnique() [5]byte { return g.g.Unique() }

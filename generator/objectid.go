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
// Uniqueness within the generator: the counter values used in one second
// form a window of 2^24 consecutive values, so one second never repeats a
// counter. When a second's window is used up, Next sleeps until the clock
// shows the next second (no lock is held while it sleeps) rather than wrap,
// as mongo-driver does silently. Counter values are handed to each P in
// blocks of 64, so concurrent goroutines do not contend on one counter;
// values left in other Ps' blocks when a window fills are skipped, so a
// second holds at least 2^24 - 64*GOMAXPROCS IDs, and within one second IDs
// from different goroutines need not be in call order. The second never goes backwards: when the
// system clock is set back, IDs keep the last second used until the clock
// passes it again.
//
// By default the clock is read through a shared coarse clock that costs an
// atomic load (the second is published by a goroutine that runs only while
// IDs are being made), so the timestamp may lag the wall clock by the timer
// latency, typically well under a millisecond, after each second boundary.
type ObjectID struct {
	g *objectidgen.Generator
}

// ObjectIDOption configures [NewObjectID].
type ObjectIDOption func(*objectIDConfig) error

type objectIDConfig struct {
	c objectidgen.Config
}

// NewObjectID returns an ObjectID generator. Without options it has a random
// process-unique value and counter start and reads the coarse system clock.
// It returns an error from an invalid option (see [WithWorkerID]).
func NewObjectID(opts ...ObjectIDOption) (*ObjectID, error) {
	var cfg objectIDConfig
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	return &ObjectID{g: objectidgen.New(cfg.c)}, nil
}

// DefaultObjectID returns the process-wide generator used by
// [types.NewObjectID].
func DefaultObjectID() *ObjectID {
	return &ObjectID{g: objectidgen.Default()}
}

// WithObjectIDClock makes the generator read time from c instead of the
// system clock; it is meant for tests. c.Sleep is used to wait for the next
// second when one second's counter space is used up.
func WithObjectIDClock(c Clock) ObjectIDOption {
	return func(cfg *objectIDConfig) error {
		cfg.c.Now = func() int64 { return c.Now().Unix() }
		cfg.c.WaitUntil = func(second int64) {
			if d := time.Unix(second, 0).Sub(c.Now()); d > 0 {
				c.Sleep(d)
			}
		}
		return nil
	}
}

// WithProcessUnique sets the 5-byte process-unique value (bytes 4 to 8 of
// every ID) instead of a random one. Two generators with the same value
// running at the same time can make the same ID.
func WithProcessUnique(v [5]byte) ObjectIDOption {
	return func(cfg *objectIDConfig) error {
		cfg.c.Unique = &v
		return nil
	}
}

// MaxObjectIDWorker is the largest worker ID accepted by [WithWorkerID].
const MaxObjectIDWorker = 1<<40 - 1

// WithWorkerID derives the 5-byte process-unique value from a worker ID that
// the caller holds exclusively (for example from a lease): the ID's
// big-endian 40 bits. It makes the value unique by assignment rather than by
// chance. An ID outside [0, MaxObjectIDWorker] makes [NewObjectID] return an
// error wrapping [ErrNodeOutOfRange].
func WithWorkerID(id int64) ObjectIDOption {
	return func(cfg *objectIDConfig) error {
		if id < 0 || id > MaxObjectIDWorker {
			return fmt.Errorf("%w: ObjectID worker %d not in [0, %d]", ErrNodeOutOfRange, id, int64(MaxObjectIDWorker))
		}
		v := [5]byte{byte(id >> 32), byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)}
		cfg.c.Unique = &v
		return nil
	}
}

// WithCounterStart sets the first counter value (taken mod 2^24) instead of
// a random one; it is meant for tests of counter wrap-around.
func WithCounterStart(c uint32) ObjectIDOption {
	return func(cfg *objectIDConfig) error {
		cfg.c.CounterStart = &c
		return nil
	}
}

// Next returns a new ObjectID. It may sleep until the next second when the
// current second's 2^24 counter values are used up; it never fails.
func (g *ObjectID) Next() types.ObjectID {
	return types.ObjectID(g.g.Next())
}

// ProcessUnique returns the generator's 5-byte process-unique value.
func (g *ObjectID) ProcessUnique() [5]byte { return g.g.Unique() }

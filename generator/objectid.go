package generator

import (
	"fmt"
	"time"

	"github.com/idkit-go/idkit/internal/objectidgen"
	"github.com/idkit-go/idkit/types"
)

// ObjectID is a generator of MongoDB ObjectIDs (a Unix second, a 5-byte
// process-unique value, a 3-byte counter), safe for concurrent use. By
// default IDs rise in the order Next returns them, across goroutines; with
// [WithPerCPUBlocks] they rise only within each P's block. The second never
// goes backwards, and within a second the last 8 bytes never wrap. How it
// carries and waits:
// https://github.com/idkit-go/idkit/blob/main/docs/generators.md
type ObjectID struct {
	g *objectidgen.Generator
}

// NewObjectID returns an ObjectID generator: by default with a random
// process-unique value and counter start and the system clock. Errors are
// those the options name.
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
	case cfg.block < 1 || cfg.block > maxPerCPUBlock:
		return nil, fmt.Errorf("%w: per-CPU block of %d not in [1, %d]", ErrInvalidConfig, cfg.block, maxPerCPUBlock)
	case cfg.worker != nil && (*cfg.worker < 0 || *cfg.worker > maxObjectIDWorker):
		return nil, fmt.Errorf("%w: ObjectID worker %d not in [0, %d]", ErrNodeOutOfRange, *cfg.worker, int64(maxObjectIDWorker))
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

// DefaultObjectID returns the generator of [types.NewObjectID].
func DefaultObjectID() *ObjectID {
	return &ObjectID{g: objectidgen.Default()}
}

// Next returns a new ObjectID. With a fixed process-unique value it sleeps
// until the next second when a second's 2^24 counter values are used up.
func (g *ObjectID) Next() types.ObjectID {
	return types.ObjectID(g.g.Next())
}

// ProcessUnique returns the generator's process-unique value (IDs made
// after the counter carried within a second hold it plus the carries).
func (g *ObjectID) ProcessUnique() [5]byte { return g.g.Unique() }

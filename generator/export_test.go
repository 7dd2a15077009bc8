package generator

import (
	"time"

	"github.com/idkit-go/idkit/generator/internal/wiring"
)

// WithCounterStart sets an [ObjectID] generator's first counter value
// (taken mod 2^24) instead of a random one, for the tests of counter
// wrap-around.
func WithCounterStart(start uint32) ObjectIDOption {
	return objectIDOption(func(c *config) { c.counterStart = &start })
}

// WithFence and WithNotBefore are the lease wiring of package node
// (wiring.Lease), for this package's tests of fences and floors.
func WithFence(f func() error) SnowflakeOption  { return &wiring.Lease{Fence: f} }
func WithNotBefore(t time.Time) SnowflakeOption { return &wiring.Lease{NotBefore: t} }

// LastTime and Rebind are lastTime and rebind, for the tests.
func (g *Snowflake) LastTime() time.Time                      { return g.lastTime() }
func (g *Snowflake) Rebind(node int64, floor time.Time) error { return g.rebind(node, floor) }

// TickOf, TimeOf and MaxTick are the layout's tick arithmetic, for the tests.
func (l Layout) TickOf(t time.Time) (int64, error) { return l.tickOf(t) }
func (l Layout) TimeOf(tick int64) time.Time       { return l.timeOf(tick) }
func (l Layout) MaxTick() int64                    { return l.maxTick() }

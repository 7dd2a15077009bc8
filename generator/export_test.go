package generator

import "time"

// WithCounterStart sets an [ObjectID] generator's first counter value
// (taken mod 2^24) instead of a random one, for the tests of counter
// wrap-around.
func WithCounterStart(start uint32) ObjectIDOption {
	return objectIDOption(func(c *config) { c.counterStart = &start })
}

// WithFence and WithNotBefore are the lease wiring that package node
// reaches through package hook, for this package's tests of fences and
// floors.
var (
	WithFence     = withFence
	WithNotBefore = withNotBefore
)

// LastTime is lastTime, for the tests.
func (g *Snowflake) LastTime() time.Time { return g.lastTime() }

// TickOf, TimeOf and MaxTick are the layout's tick arithmetic, for the tests.
func (l Layout) TickOf(t time.Time) (int64, error) { return l.tickOf(t) }
func (l Layout) TimeOf(tick int64) time.Time       { return l.timeOf(tick) }
func (l Layout) MaxTick() int64                    { return l.maxTick() }

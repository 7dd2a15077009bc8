// Package generatortest holds what tests of code that uses idkit's
// generators need and programs do not: a [FakeClock] to drive a
// generator's time by hand.
package generatortest

import (
	"sync"
	"time"

	"github.com/idkit-go/idkit/generator"
)

var _ generator.Clock = (*FakeClock)(nil)

// FakeClock is a manually driven [generator.Clock] for tests, given to a
// generator with [generator.WithClock]. Its time moves only when
// Set, Add or Sleep is called; Sleep advances the time by its argument
// instead of blocking, so a generator that waits for a later tick never
// hangs. A FakeClock is safe for concurrent use. Create one with
// [NewFakeClock]; the zero value reads as the zero [time.Time].
type FakeClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewFakeClock returns a [FakeClock] that reads t.
func NewFakeClock(t time.Time) *FakeClock { return &FakeClock{t: t} }

// Now returns the clock's current time. It is safe for concurrent use.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Sleep advances the clock by d and returns at once; a d of zero or less
// does nothing. It is safe for concurrent use.
func (c *FakeClock) Sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	c.Add(d)
}

// Set makes the clock read t, which may be before its current time (to
// simulate a clock stepped backwards). It is safe for concurrent use.
func (c *FakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Add moves the clock by d, which may be negative. It is safe for concurrent
// use.
func (c *FakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

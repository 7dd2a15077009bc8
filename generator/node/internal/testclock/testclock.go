// Package testclock provides a real clock shifted by a fixed offset, for
// tests and the lease worker that simulate a host whose clock is wrong.
package testclock

import "time"

// Offset is a generator.Clock that reads the system clock plus D (negative
// for a clock behind). Sleep really sleeps. It is safe for concurrent use.
type Offset struct{ D time.Duration }

// Now returns time.Now() + D, keeping the monotonic reading.
func (c Offset) Now() time.Time { return time.Now().Add(c.D) }

// Sleep sleeps for d.
func (c Offset) Sleep(d time.Duration) { time.Sleep(d) }

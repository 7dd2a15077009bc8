package generator

import "time"

// Clock is the time source of a generator. Now gives the current time; Sleep
// blocks for d. Implementations must be safe for concurrent use.
//
// Generators read Now for the wall-clock time encoded in IDs and call Sleep
// only while holding no lock, when they must wait for a later tick; after
// Sleep they read Now again. A Clock whose time never advances therefore
// makes such a wait last forever ([FakeClock.Sleep] advances its time).
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration)
}

// SystemClock returns the real clock: Now is [time.Now] and Sleep is
// [time.Sleep]. It is safe for concurrent use.
func SystemClock() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time        { return time.Now() }
func (systemClock) Sleep(d time.Duration) { time.Sleep(d) }

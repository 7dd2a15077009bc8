package generator

import (
	"runtime"
	"time"
)

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

// SystemClock returns the real clock. Now is [time.Now]. Sleep wakes within
// a few microseconds of d, where [time.Sleep] may oversleep by a millisecond
// on Linux: it sleeps in [time.Sleep] while more than 2 ms remain, then in a
// short OS sleep (nanosleep on Linux), and yields the processor for the last
// tens of microseconds. It is safe for concurrent use.
//
// Generators built with the system clock read it on the hot path through a
// shared coarse clock (an atomic load) and read [time.Now] only to confirm a
// decision to wait or to fail, so a generated time may trail the wall clock
// by up to about a millisecond.
func SystemClock() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Sleep(d time.Duration) {
	deadline := time.Now().Add(d) // monotonic
	for {
		switch left := time.Until(deadline); {
		case left <= 0:
			return
		case left > 2*time.Millisecond:
			time.Sleep(left - 1500*time.Microsecond)
		case left > 200*time.Microsecond:
			shortSleep(left - 150*time.Microsecond)
		default:
			runtime.Gosched()
		}
	}
}

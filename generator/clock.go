package generator

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Clock is the time source of a generator, safe for concurrent use.
// Generators call Sleep, holding no lock, to wait for a later time and then
// read Now again, so Sleep must advance Now.
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration)
}

// SystemClock returns the real clock: Now is [time.Now], and Sleep wakes
// within microseconds of d (see
// https://github.com/idkit-go/idkit/blob/main/docs/generators.md#the-system-clock).
// A generated time may trail the wall clock by up to about a millisecond;
// while IDs come fast, the up to 63 IDs made right after a pause may trail
// by that pause, if the scheduler paused the goroutines making them or kept
// the shared clock's timer from running.
func SystemClock() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Sleep(d time.Duration) {
	deadline := time.Now().Add(d) // monotonic
	for {
		left := time.Until(deadline)
		margin := time.Duration(shortSleepLate.Load()) + yieldWindow
		switch {
		case left <= 0:
			return
		case left > 2*time.Millisecond:
			time.Sleep(left - 1500*time.Microsecond)
		case left > margin:
			want := left - margin
			start := time.Now()
			shortSleep(want)
			shortSleepLate.Store(int64(nextLateness(time.Duration(shortSleepLate.Load()), time.Since(start)-want)))
		default:
			runtime.Gosched()
		}
	}
}

// yieldWindow is how long before the deadline, beyond the expected lateness,
// Sleep's short OS sleep aims to end; the rest is spent yielding.
const yieldWindow = 10 * time.Microsecond

// shortSleepLate is the running estimate, in nanoseconds, of how late a
// short OS sleep wakes (about 60-80 µs on the virtual machines this was
// measured on). It is a measurement shared by all system clocks, not a
// setting; updates from concurrent sleeps may overwrite each other.
var shortSleepLate atomic.Int64

func init() { shortSleepLate.Store(int64(100 * time.Microsecond)) }

// nextLateness moves the lateness estimate an eighth of the way to a new
// observation, kept within [0, 1ms] so that one stalled wake-up (the thread
// descheduled) cannot turn the short sleep off.
func nextLateness(estimate, observed time.Duration) time.Duration {
	observed = min(max(observed, 0), time.Millisecond)
	return estimate + (observed-estimate)/8
}

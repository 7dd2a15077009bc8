package generator

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Clock is the time source of a generator. Now gives the current time; Sleep
// blocks for d. Implementations must be safe for concurrent use.
//
// Generators read Now for the wall-clock time encoded in IDs and call Sleep
// only while holding no lock, when they must wait for a later tick; after
// Sleep they read Now again. A Clock whose time never advances therefore
// makes such a wait last forever; the test clock
// [github.com/idkit-go/idkit/generator/generatortest.FakeClock] advances
// its time in Sleep.
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration)
}

// SystemClock returns the real clock. Now is [time.Now]. Sleep wakes within
// a few microseconds of d, where [time.Sleep] may oversleep by a millisecond
// on Linux: it sleeps in [time.Sleep] while more than 2 ms remain, then in a
// short OS sleep (nanosleep on Linux) that ends early by the OS's usual
// lateness, which it measures as it goes, and yields the processor for what
// is left, typically a few microseconds. It is safe for concurrent use.
//
// Generators built with the system clock read it through a shared coarse
// clock. While IDs come fast (hundreds within one millisecond), a
// background goroutine publishes the millisecond and a read is an atomic
// load; the goroutine stops itself as soon as a millisecond passes with
// fewer reads, and below that rate a read reads the wall clock directly.
// So a process making IDs at a low rate runs no background work. A
// decision to wait or to fail is always confirmed with [time.Now]; a
// generated time may trail the wall clock by up to about a millisecond.
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

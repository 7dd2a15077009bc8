package generator

import (
	"syscall"
	"time"
)

// shortSleep sleeps for d with nanosleep, which on Linux wakes within about
// a hundred microseconds where time.Sleep rounds up to the next millisecond.
func shortSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil) // EINTR only shortens the sleep; the caller loops
}

// Package coarseclock gives the current Unix second for the price of an
// atomic load.
//
// Reading the wall clock costs tens of nanoseconds (about 90 ns on some
// virtual machines), which is most of the cost of making an ObjectID, yet an
// ObjectID needs only the second. A background goroutine wakes at each second
// boundary and publishes the new second; it starts on the first read and exits
// after a few seconds without readers, so an idle process runs nothing.
//
// The published second may lag the wall clock by the timer latency (usually
// well under a millisecond) after each boundary, and by up to one second after
// the wall clock is stepped. It follows the wall clock backwards when the
// system clock is set back; callers that must never go backwards keep their
// own high-water mark.
package coarseclock

import (
	"sync"
	"sync/atomic"
	"time"
)

// idleTicks is how many second boundaries may pass without a reader before
// the ticker goroutine exits.
const idleTicks = 3

var (
	seconds atomic.Int64 // current Unix second; 0 while no ticker runs
	read    atomic.Bool  // set by readers, cleared by the ticker each second
	startMu sync.Mutex   // serialises starting and stopping the ticker
)

// UnixSeconds returns the current Unix time in whole seconds. It is safe for
// concurrent use.
func UnixSeconds() int64 {
	s := seconds.Load()
	if s == 0 {
		return start()
	}
	if !read.Load() { // a load first keeps the cache line shared on the hot path
		read.Store(true)
	}
	return s
}

func start() int64 {
	startMu.Lock()
	defer startMu.Unlock()
	if s := seconds.Load(); s != 0 {
		return s
	}
	s := time.Now().Unix()
	seconds.Store(s)
	read.Store(true)
	go tick()
	return s
}

// tick publishes each new second until no one has read the clock for
// idleTicks seconds.
func tick() {
	idle := 0
	for {
		now := time.Now()
		time.Sleep(now.Truncate(time.Second).Add(time.Second).Sub(now))
		if read.Swap(false) {
			idle = 0
		} else if idle++; idle >= idleTicks {
			startMu.Lock()
			seconds.Store(0)
			startMu.Unlock()
			return
		}
		seconds.Store(time.Now().Unix())
	}
}

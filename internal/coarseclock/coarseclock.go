// Package coarseclock gives the current Unix second, or millisecond, for the
// price of an atomic load.
//
// Reading the wall clock costs tens of nanoseconds (50 to 90 ns on some
// virtual machines), which is most of the cost of making an ID, yet an
// ObjectID needs only the second and a Snowflake only its time unit. A
// background goroutine publishes the time at each boundary; it starts on the
// first read and exits after a while without readers, so an idle process
// runs nothing.
//
// A published value may lag the wall clock by the timer latency after each
// boundary (well under a millisecond for seconds; for milliseconds up to
// about one more millisecond, since Go timers on Linux wake at millisecond
// granularity), and by up to one period after the wall clock is stepped. It
// follows the wall clock backwards when the system clock is set back; callers
// that must never go backwards keep their own high-water mark, and callers
// that need the exact time read the wall clock.
package coarseclock

import (
	"sync"
	"sync/atomic"
	"time"
)

// ticker publishes the wall clock in whole periods.
type ticker struct {
	value   atomic.Int64 // current time in periods; 0 while stopped
	read    atomic.Bool  // set by readers, cleared by the goroutine each tick
	startMu sync.Mutex   // serialises starting and stopping the goroutine
	period  time.Duration
	idle    int // ticks without a reader before the goroutine exits
}

var (
	seconds = &ticker{period: time.Second, idle: 3}
	millis  = &ticker{period: time.Millisecond, idle: 1000}
)

// UnixSeconds returns the current Unix time in whole seconds. It is safe for
// concurrent use.
func UnixSeconds() int64 { return seconds.load() }

// UnixMilli returns the current Unix time in whole milliseconds. It is safe
// for concurrent use.
func UnixMilli() int64 { return millis.load() }

// ObserveMilli moves the published millisecond forward to ms, a wall-clock
// reading the caller has just made, so later readers do not see an older
// time than one already observed. It never moves the value backwards and does
// nothing while the clock is stopped. It is safe for concurrent use.
func ObserveMilli(ms int64) {
	for {
		v := millis.value.Load()
		if v == 0 || ms <= v || millis.value.CompareAndSwap(v, ms) {
			return
		}
	}
}

func (t *ticker) load() int64 {
	v := t.value.Load()
	if v == 0 {
		return t.start()
	}
	if !t.read.Load() { // a load first keeps the cache line shared on the hot path
		t.read.Store(true)
	}
	return v
}

func (t *ticker) now() int64 { return time.Now().UnixNano() / int64(t.period) }

func (t *ticker) start() int64 {
	t.startMu.Lock()
	defer t.startMu.Unlock()
	if v := t.value.Load(); v != 0 {
		return v
	}
	v := t.now()
	t.value.Store(v)
	t.read.Store(true)
	go t.run()
	return v
}

// run publishes each new period until no one has read the clock for t.idle
// periods.
func (t *ticker) run() {
	idle := 0
	for {
		now := time.Now()
		time.Sleep(now.Truncate(t.period).Add(t.period).Sub(now))
		if t.read.Swap(false) {
			idle = 0
		} else if idle++; idle >= t.idle {
			t.startMu.Lock()
			t.value.Store(0)
			t.startMu.Unlock()
			return
		}
		t.value.Store(t.now())
	}
}

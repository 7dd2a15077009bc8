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
//
// word holds the current time in periods shifted left by one, with the low
// bit set once a reader has seen that period; 0 means stopped. Keeping both
// in one word makes the hot path a single load and bit test.
type ticker struct {
	word    atomic.Int64
	startMu sync.Mutex // serialises starting and stopping the goroutine
	period  time.Duration
	idle    int // ticks without a reader before the goroutine exits
}

const readBit = 1

var (
	seconds = ticker{period: time.Second, idle: 3}
	millis  = ticker{period: time.Millisecond, idle: 1000}
)

// UnixSeconds returns the current Unix time in whole seconds. It is safe for
// concurrent use.
func UnixSeconds() int64 {
	if w := seconds.word.Load(); w&readBit != 0 { // the hot path of load, inlined by hand
		return w >> 1
	}
	return secondsSlow()
}

// UnixMilli returns the current Unix time in whole milliseconds. It is safe
// for concurrent use.
func UnixMilli() int64 {
	if w := millis.word.Load(); w&readBit != 0 { // the hot path of load, inlined by hand
		return w >> 1
	}
	return millisSlow()
}

// ObserveMilli moves the published millisecond forward to ms, a wall-clock
// reading the caller has just made, so later readers do not see an older
// time than one already observed. It never moves the value backwards and does
// nothing while the clock is stopped. It is safe for concurrent use.
func ObserveMilli(ms int64) {
	for {
		w := millis.word.Load()
		if w == 0 || ms <= w>>1 || millis.word.CompareAndSwap(w, ms<<1|readBit) {
			return
		}
	}
}

// secondsSlow and millisSlow take no arguments, which keeps the exported
// readers within the inlining budget.
//
//go:noinline
func secondsSlow() int64 { return seconds.loadSlow() }

//go:noinline
func millisSlow() int64 { return millis.loadSlow() }

// loadSlow is a read that found the ticker stopped or the period not yet
// marked read. The exported readers' hot path is one load of a word that is
// written once per period by the ticker and once by the period's first
// reader, and is small enough to be inlined.
func (t *ticker) loadSlow() int64 {
	for {
		w := t.word.Load()
		if w == 0 {
			return t.start()
		}
		if w&readBit != 0 || t.word.CompareAndSwap(w, w|readBit) {
			return w >> 1
		}
	}
}

func (t *ticker) now() int64 { return time.Now().UnixNano() / int64(t.period) }

func (t *ticker) start() int64 {
	t.startMu.Lock()
	defer t.startMu.Unlock()
	if w := t.word.Load(); w != 0 {
		return w >> 1
	}
	v := t.now()
	t.word.Store(v<<1 | readBit)
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
		if t.word.Swap(t.now()<<1)&readBit != 0 {
			idle = 0
		} else if idle++; idle >= t.idle {
			t.startMu.Lock()
			t.word.Store(0)
			t.startMu.Unlock()
			return
		}
	}
}

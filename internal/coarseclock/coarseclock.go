// Package coarseclock gives the current Unix second, or millisecond, for the
// price of an atomic load while it is read often, and for the price of one
// wall-clock read while it is not.
//
// Reading the wall clock costs tens of nanoseconds (50 to 90 ns on some
// virtual machines), which is most of the cost of making an ID at high
// rates, yet an ObjectID needs only the second and a Snowflake only its
// time unit. At high read rates a background goroutine publishes the time
// at each boundary and a read is one atomic load. Waking that goroutine
// costs microseconds, far more than reading the clock a few times, so it
// runs only while it pays for itself:
//
//   - While it is stopped, a read reads the wall clock (gettimeofday, a
//     vDSO call of about 20 ns, on linux/amd64; time.Now elsewhere) and
//     counts the reads made in the current period; the read that makes the
//     count reach the period's threshold (511 reads in one millisecond, 1023 in one second)
//     starts the goroutine.
//   - While it runs, the first reads of each period (up to the threshold)
//     are counted; at each boundary the goroutine stops itself if the
//     period just ended had fewer reads than the threshold.
//
// So the goroutine never wakes more often than the clock is read, and a
// process making IDs at a low or moderate rate runs no background work.
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

// ticker publishes the wall clock in whole periods while it is read often.
//
// word is 0 while the goroutine is stopped. While it runs, word holds the
// current time in periods shifted left by bits, and in the low bits the
// number of reads counted in that period, saturating at limit = 2^bits-1.
// Keeping both in one word makes the hot path a single load and mask test.
type ticker struct {
	word    atomic.Int64
	burstAt atomic.Int64 // the period whose reads burstN counts, while stopped
	burstN  atomic.Int64
	startMu sync.Mutex // serialises starting and stopping the goroutine
	period  time.Duration
	bits    uint8
	limit   int64
}

const (
	secondBits = 10
	milliBits  = 9
)

var (
	seconds = ticker{period: time.Second, bits: secondBits, limit: 1<<secondBits - 1}
	millis  = ticker{period: time.Millisecond, bits: milliBits, limit: 1<<milliBits - 1}
)

// UnixSeconds returns the current Unix time in whole seconds. It is safe for
// concurrent use.
func UnixSeconds() int64 {
	const limit = 1<<secondBits - 1
	if w := seconds.word.Load(); w&limit == limit { // the hot path, inlined by hand
		return w >> secondBits
	}
	return secondsSlow()
}

// UnixMilli returns the current Unix time in whole milliseconds. It is safe
// for concurrent use.
func UnixMilli() int64 {
	const limit = 1<<milliBits - 1
	if w := millis.word.Load(); w&limit == limit { // the hot path, inlined by hand
		return w >> milliBits
	}
	return millisSlow()
}

// ObserveMilli moves the published millisecond forward to ms, a wall-clock
// reading the caller has just made, so later readers do not see an older
// time than one already observed. It never moves the value backwards and does
// nothing while the goroutine is stopped (reads then call time.Now). It is
// safe for concurrent use.
func ObserveMilli(ms int64) {
	for {
		w := millis.word.Load()
		if w == 0 || ms <= w>>milliBits ||
			millis.word.CompareAndSwap(w, ms<<milliBits|w&millis.limit) {
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

// loadSlow is a read that found the goroutine stopped or the period's reads
// not yet all counted.
func (t *ticker) loadSlow() int64 {
	for {
		w := t.word.Load()
		if w == 0 {
			return t.direct()
		}
		if w&t.limit == t.limit || t.word.CompareAndSwap(w, w+1) {
			return w >> t.bits
		}
	}
}

// direct reads the wall clock and counts the read towards starting the
// goroutine. The count is a heuristic: concurrent reads at a boundary may
// lose a few counts, which only delays the start.
func (t *ticker) direct() int64 {
	v := t.now()
	if t.burstAt.Load() != v {
		t.burstAt.Store(v)
		t.burstN.Store(0)
	}
	if t.burstN.Add(1) == t.limit {
		t.start()
	}
	return v
}

// now reads the wall clock in periods. The divisions are by constants,
// which compile to multiplications.
func (t *ticker) now() int64 {
	if t.period == time.Millisecond {
		return wallNanos() / int64(time.Millisecond)
	}
	return wallNanos() / int64(time.Second)
}

// start publishes the time and starts the goroutine, unless it runs. The
// first period counts as fully read, so readers take the hot path at once.
func (t *ticker) start() {
	t.startMu.Lock()
	defer t.startMu.Unlock()
	if t.word.Load() != 0 {
		return
	}
	t.word.Store(t.now()<<t.bits | t.limit)
	go t.run()
}

// run publishes each new period until a period ends with fewer reads than
// the limit.
func (t *ticker) run() {
	for {
		now := time.Now()
		time.Sleep(now.Truncate(t.period).Add(t.period).Sub(now))
		for {
			w := t.word.Load()
			if w&t.limit < t.limit {
				t.startMu.Lock()
				t.word.Store(0)
				t.burstN.Store(0)
				t.startMu.Unlock()
				return
			}
			if t.word.CompareAndSwap(w, t.now()<<t.bits) {
				break
			}
		}
	}
}

// Package coarseclock gives the current Unix second, or millisecond, for the
// price of an atomic load while it is read often, and for the price of one
// wall-clock read while it is not.
//
// Reading the wall clock costs tens of nanoseconds (50 to 90 ns on some
// virtual machines), which is most of the cost of making an ID at high
// rates, yet an ObjectID needs only the second and a Snowflake only its
// time unit. So while reads are frequent the time is published in one word
// and a read is one atomic load:
//
//   - While nothing is published, a read reads the wall clock (gettimeofday,
//     a vDSO call of about 20 ns, on linux/amd64; time.Now elsewhere) and
//     counts the reads made in the current period; the read that makes the
//     count reach the period's threshold (511 reads in one millisecond, 1023
//     in one second) publishes the time and arms a runtime timer for the
//     period's end.
//   - The timer publishes the new period at each boundary and stops
//     publishing (reads go back to the wall clock) if the period just ended
//     had fewer reads than the threshold. It is a timer, not a goroutine:
//     between boundaries nothing runs, and a read-heavy burst leaves no
//     goroutine behind.
//   - A timer waits for a free P, which busy goroutines may hold for
//     milliseconds. So callers that read at high rates also call [SyncMilli]
//     or [SyncSeconds] once every [SyncEvery] reads, counted by a counter
//     they keep anyway: that reads the wall clock and moves the published
//     value forward.
//
// So nothing wakes more often than the clock is read, a process making IDs
// at a low or moderate rate runs no background work, and one that makes
// them fast reads a value at most SyncEvery of its reads old. A published
// value may lag the wall clock by more only after reads slowed down while
// the timer is late, and by up to one period after the wall clock is
// stepped. It follows the wall clock backwards when the timer publishes
// after the system clock was set back; callers that must never go backwards
// keep their own high-water mark, and callers that need the exact time read
// the wall clock.
package coarseclock

import (
	"sync"
	"sync/atomic"
	"time"
)

// ticker publishes the wall clock in whole periods while it is read often.
//
// word is 0 while nothing is published. Otherwise word holds the
// current time in periods shifted left by bits, and in the low bits the
// number of reads counted in that period, saturating at limit = 2^bits-1.
// Keeping both in one word makes the hot path a single load and mask test.
type ticker struct {
	word    atomic.Int64
	burstAt atomic.Int64 // the period whose reads burstN counts, while stopped
	burstN  atomic.Int64
	mu      sync.Mutex  // serialises starting and stopping; guards timer
	timer   *time.Timer // fires at each period's end while published
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

// SyncEvery is how many reads a caller that reads at high rates makes
// between calls of [SyncMilli] or [SyncSeconds]: a power of two, so a
// counter value v calls for one when v%SyncEvery == 0.
const SyncEvery = 64

// SyncSeconds reads the wall clock and moves the published second forward
// to it. It does nothing while nothing is published. It is safe for
// concurrent use.
func SyncSeconds() { seconds.sync() }

// SyncMilli is [SyncSeconds] for the millisecond.
func SyncMilli() { millis.sync() }

// ObserveMilli moves the published millisecond forward to ms, a wall-clock
// reading the caller has just made, so later readers do not see an older
// time than one already observed. It never moves the value backwards and does
// nothing while nothing is published (reads then read the wall clock). It is
// safe for concurrent use.
func ObserveMilli(ms int64) { millis.observe(ms) }

func (t *ticker) sync() {
	if t.word.Load() != 0 {
		t.observe(t.now())
	}
}

func (t *ticker) observe(v int64) {
	for {
		w := t.word.Load()
		if w == 0 || v <= w>>t.bits ||
			t.word.CompareAndSwap(w, v<<t.bits|w&t.limit) {
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

// loadSlow is a read that found nothing published or the period's reads
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

// direct reads the wall clock and counts the read towards publishing. The
// count is a heuristic: concurrent reads at a boundary may lose a few
// counts, which only delays the start.
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

// start publishes the time and arms the timer, unless the time is
// published. The first period counts as fully read, so readers take the hot
// path at once.
func (t *ticker) start() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.word.Load() != 0 {
		return
	}
	t.word.Store(t.now()<<t.bits | t.limit)
	t.arm()
}

// arm sets the timer to fire at the end of the current period. t.mu is held.
func (t *ticker) arm() {
	now := time.Now()
	d := now.Truncate(t.period).Add(t.period).Sub(now)
	if t.timer == nil {
		t.timer = time.AfterFunc(d, t.tick)
	} else {
		t.timer.Reset(d)
	}
}

// tick runs at a period's end: it publishes the new period and arms the
// timer again, or, if the period ended with fewer reads than the limit,
// stops publishing.
func (t *ticker) tick() {
	for {
		w := t.word.Load()
		if w&t.limit < t.limit {
			t.mu.Lock()
			t.word.Store(0)
			t.burstN.Store(0)
			t.mu.Unlock()
			return
		}
		if t.word.CompareAndSwap(w, t.now()<<t.bits) {
			break
		}
	}
	t.mu.Lock()
	t.arm()
	t.mu.Unlock()
}

// Package objectidgen makes MongoDB ObjectIDs. It returns plain [12]byte
// values so that both the types package (for types.NewObjectID) and the
// generator package can use it without an import cycle.
package objectidgen

import (
	"crypto/rand"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idkit-go/idkit/internal/coarseclock"
)

// CounterSpace is the number of distinct 3-byte counter values.
const CounterSpace = 1 << 24

// Config holds a generator's settings. The zero Config gives a random
// process-unique value, a random counter start and the coarse system clock.
type Config struct {
	// Unique is the 5-byte process-unique value; nil means random.
	Unique *[5]byte
	// CounterStart is the first counter value (mod 2^24); nil means random.
	CounterStart *uint32
	// Now returns the current Unix second; nil means the coarse system clock.
	Now func() int64
	// WaitUntil blocks until Now would return at least second; nil means
	// sleeping on the system clock.
	WaitUntil func(second int64)
}

// Generator makes ObjectIDs. It is safe for concurrent use.
//
// Every ID takes a distinct value of a 64-bit counter; its low 24 bits are
// the ID's counter field. Values are reserved from the shared counter in
// blocks of 64 per P (see shard.go), so concurrent goroutines rarely write
// the same memory. The window of counter values an ID may use in second S
// starts at the first counter value taken in S and is 2^24 wide, so no two
// IDs of one second share a counter field; values reserved before the window
// opened are discarded. When the window is used up, Next sleeps until the
// clock reaches the next second. Values left in other Ps' blocks when that
// happens are not used in that second, so a second holds at least
// 2^24 - 64*GOMAXPROCS IDs. The second never moves
// backwards: if the clock is set back, IDs keep the last second used (and,
// once its window is full, wait for the clock to pass it).
type Generator struct {
	counter atomic.Uint64
	shards  []shard
	window  atomic.Pointer[window]
	unique  [5]byte
	// uniqueHi and uniqueLo are unique split for build: bytes 0-3, and
	// byte 4 shifted into the top byte of the ID's last four bytes.
	uniqueHi uint32
	uniqueLo uint32
	now      func() int64 // nil: coarseclock.UnixSeconds, called directly
	wait     func(second int64)
}

// window is the range of counter values usable in one second.
type window struct {
	second int64
	first  uint64
}

// New returns a generator with the given configuration.
func New(c Config) *Generator {
	g := &Generator{now: c.Now, wait: c.WaitUntil, shards: newShards()}
	if g.wait == nil {
		g.wait = sleepUntil
	}
	if c.Unique != nil {
		g.unique = *c.Unique
	} else {
		mustRead(g.unique[:])
	}
	g.uniqueHi = binary.BigEndian.Uint32(g.unique[0:4])
	g.uniqueLo = uint32(g.unique[4]) << 24
	var start uint32
	if c.CounterStart != nil {
		start = *c.CounterStart
	} else {
		var b [4]byte
		mustRead(b[:])
		start = binary.BigEndian.Uint32(b[:])
	}
	g.counter.Store(uint64(start % CounterSpace))
	g.window.Store(&window{second: -1})
	return g
}

// Unique returns the generator's 5-byte process-unique value.
func (g *Generator) Unique() [5]byte { return g.unique }

// Next returns a new ObjectID.
func (g *Generator) Next() [12]byte {
	c := g.take()
	w := g.window.Load()
	// The common case: same second, value inside its window (c < w.first
	// wraps to a huge difference, so one comparison covers both bounds).
	if g.clock() == w.second && c-w.first < CounterSpace {
		return g.build(w.second, c)
	}
	return g.nextSlow(c)
}

// nextSlow handles a new second, a value reserved before its second's
// window opened, a full window, and a clock that went back.
func (g *Generator) nextSlow(c uint64) [12]byte {
	for {
		w := g.window.Load()
		if now := g.clock(); now > w.second {
			if g.window.CompareAndSwap(w, &window{second: now, first: c}) {
				return g.build(now, c)
			}
			// Another goroutine opened the second; take a fresh value.
		} else if c-w.first < CounterSpace { // in the window (of the last second, if the clock went back)
			return g.build(w.second, c)
		} else if c >= w.first { // this second's counter space is used up
			g.waitPast(w.second)
		} else { // reserved before the window opened: discard the block
			g.dropBlock()
		}
		c = g.take()
	}
}

// clock returns the current Unix second.
func (g *Generator) clock() int64 {
	if g.now == nil {
		return coarseclock.UnixSeconds()
	}
	return g.now()
}

// waitPast blocks until the clock shows a second later than s.
func (g *Generator) waitPast(s int64) {
	for g.clock() <= s {
		g.wait(s + 1)
	}
}

// sleepUntil sleeps on the system clock until the given Unix second, plus a
// millisecond for the coarse clock to publish it.
func sleepUntil(second int64) {
	time.Sleep(time.Until(time.Unix(second, 0)) + time.Millisecond)
}

func (g *Generator) build(second int64, c uint64) [12]byte {
	var id [12]byte
	binary.BigEndian.PutUint64(id[0:8], uint64(second)<<32|uint64(g.uniqueHi))
	binary.BigEndian.PutUint32(id[8:12], g.uniqueLo|uint32(c)&(CounterSpace-1))
	return id
}

var (
	defaultOnce sync.Once
	defaultGen  *Generator
)

// Default returns the process-wide generator behind types.NewObjectID.
func Default() *Generator {
	defaultOnce.Do(func() { defaultGen = New(Config{}) })
	return defaultGen
}

// mustRead fills b from crypto/rand. crypto/rand.Read never fails on
// supported platforms; if it does, no safe ID can be made, so it panics.
func mustRead(b []byte) {
	if _, err := rand.Read(b); err != nil {
		panic("idkit: crypto/rand failed: " + err.Error())
	}
}

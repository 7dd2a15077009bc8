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
	"github.com/idkit-go/idkit/internal/procpin"
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
// the ID's counter field. The window of counter values an ID may use in
// second S starts at the first counter value reserved in S and is 2^24 wide,
// so no two IDs of one second share a counter field. Values are reserved
// from the shared counter in blocks of 64, each checked against the current
// window and kept by one P (see shard.go), so making an ID normally touches
// only the P's own shard and never a cache line another core writes. When
// the window is used up, Next sleeps until the clock reaches the next second.
// Values left in blocks when a second ends, or when another P fills the
// window, are never used, so a second holds at least 2^24 - 64*GOMAXPROCS
// IDs. The second never moves backwards: if the clock is set back, IDs keep
// the last second used (and, once its window is full, wait for the clock to
// pass it).
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

// window is the range of counter values usable in one second. Windows are
// replaced, never changed, and their seconds only increase, so a second
// identifies its window.
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
//
// The common case takes the next value of the calling P's block, which was
// checked to lie inside the window of the block's second when it was
// reserved; it only has to confirm that this second is still the current
// window's and that the clock has not moved past it.
func (g *Generator) Next() [12]byte {
	var now int64 // read unpinned: an injected clock may block
	if g.now == nil {
		now = coarseclock.UnixSeconds() // inlined, unlike g.clock
	} else {
		now = g.now()
	}
	p := procpin.Pin()
	if second, c, ok := g.takeFromShard(p, now); ok {
		procpin.Unpin()
		return g.build(second, c)
	}
	procpin.Unpin()
	return g.nextSlow()
}

// takeFromShard takes the next value of P p's block if the block is still
// usable at time now. The caller is pinned to p.
func (g *Generator) takeFromShard(p int, now int64) (second int64, c uint64, ok bool) {
	if p >= len(g.shards) {
		return 0, 0, false
	}
	s := &g.shards[p]
	next, end, second := s.load()
	if next >= end || second != g.window.Load().second || now > second {
		return 0, 0, false
	}
	s.setNext(next + 1)
	return second, next, true
}

// nextSlow makes an ID when the calling P's block is used up or stale. It
// does its work pinned to one P, so a block it reserves goes to the shard it
// checked, and unpins only to wait.
func (g *Generator) nextSlow() [12]byte {
	for {
		now := g.clock()
		p := procpin.Pin()
		second, c, waitPast := g.refill(p, now)
		procpin.Unpin()
		if waitPast < 0 {
			return g.build(second, c)
		}
		g.waitPast(waitPast)
	}
}

// refill takes a value for an ID made at time now on P p, to which the
// caller is pinned. The goroutine may have moved to a P whose block is
// usable, so that is tried first. Otherwise it reserves a new block from the
// shared counter and opens a new second's window with it when the clock has
// moved past the current one, or else checks it against the current window
// (a block that lost the race to open a window is checked against the
// winner's, so it is not wasted). When that window is used up it returns
// the window's second as waitPast, and -1 otherwise. It never blocks.
func (g *Generator) refill(p int, now int64) (second int64, c uint64, waitPast int64) {
	if second, c, ok := g.takeFromShard(p, now); ok {
		return second, c, -1
	}
	size := uint64(blockSize)
	if p >= len(g.shards) { // GOMAXPROCS grew after the generator was made
		size = 1
	}
	first := g.counter.Add(size) - size
	for {
		w := g.window.Load()
		switch {
		case now > w.second:
			if g.window.CompareAndSwap(w, &window{second: now, first: first}) {
				return g.install(p, now, first, first+size)
			}
			// Another P opened a window first: check the block against it.
		case first-w.first < CounterSpace: // inside the window (of the last second, if the clock went back)
			return g.install(p, w.second, first, min(first+size, w.first+CounterSpace))
		case first >= w.first: // this second's counter space is used up
			return 0, 0, w.second
		default: // the block lies before a window opened since it was reserved
			first = g.counter.Add(size) - size
		}
	}
}

// install gives P p's shard the block [first+1, end) of second and returns
// first for an ID. The caller is pinned to p.
func (g *Generator) install(p int, second int64, first, end uint64) (int64, uint64, int64) {
	if p < len(g.shards) {
		g.shards[p].store(first+1, end, second)
	}
	return second, first, -1
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

// Package objectidgen makes MongoDB ObjectIDs. It returns plain [12]byte
// values so that both the types package (for types.NewObjectID) and the
// generator package can use it without an import cycle.
//
// # Layout and order
//
// An ID is a 4-byte big-endian Unix second followed by an 8-byte big-endian
// number: the 5-byte process-unique value times 2^24 plus the 3-byte
// counter. Every ID takes the next value of one shared 64-bit counter, and
// each second maps the counter values it uses onto the 8-byte number by
// adding a fixed offset, so within a second IDs rise with the counter. By
// default ([Config.Block] 0 or 1) every ID takes one value, so one
// generator's IDs of one second rise in the order the calls return, across
// goroutines; an ID never has an earlier second than an ID returned before
// it. With [Config.Block] n > 1 each P (scheduler processor) reserves n
// values at a time and IDs rise only within a P's block.
//
// The counter field of each second continues from where the previous second
// left it, starting at a random value as in MongoDB's specification. It is
// never allowed to wrap to a smaller value within a second, which would
// break the order; what happens when it reaches 2^24 - 1 depends on the
// process-unique value:
//
//   - Random process-unique value (the default): the counter carries into
//     the process-unique value, so the ID's bytes 4 to 11 keep rising as one
//     64-bit number (wrapping only if the random value is within the carry
//     of 2^40 - 1) and a second is never used up: making IDs never waits.
//     The IDs made after the carry carry the process-unique value plus 1
//     (plus one more for each further 2^24 IDs in that second), and the next
//     second starts the counter at 0 with the original value. So the
//     process-unique bytes identify the process only up to that carry, and
//     in a second where the two processes' counters carry k times in all,
//     two processes share a process-unique value with a chance of about
//     (1+2k)/2^40 instead of 1/2^40 (k is 0 below 2^24 IDs a second); they
//     collide only if their counters also overlap. A fresh random value at
//     each wrap would keep 1/2^40 but break the order within the second;
//     the carry keeps the order.
//   - Fixed process-unique value ([Config.Unique], an assigned worker ID):
//     the value must not change, so when the counter reaches 2^24 - 1 the
//     second is used up and Next sleeps until the clock shows the next
//     second, whose counter starts at 0. So a second holds up to 2^24 IDs:
//     fewer in the second where the continuing counter reaches 2^24 - 1 (at
//     least one), and with blocks of n up to n per P fewer (values left in
//     the blocks of other Ps).
//
// The second never moves backwards: if the clock is set back, IDs keep the
// last second used until the clock passes it.
package objectidgen

import (
	"crypto/rand"
	"encoding/binary"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idkit-go/idkit/internal/coarseclock"
	"github.com/idkit-go/idkit/internal/procpin"
	"github.com/idkit-go/idkit/internal/scatter"
)

// CounterSpace is the number of distinct 3-byte counter values.
const CounterSpace = 1 << 24

// Config holds a generator's settings. The zero Config gives a random
// process-unique value, a random counter start, strict order and the coarse
// system clock.
type Config struct {
	// Unique is the 5-byte process-unique value, fixed for the generator's
	// life; nil means a random value into which the counter may carry (see
	// the package doc).
	Unique *[5]byte
	// CounterStart is the first counter value (mod 2^24); nil means random.
	CounterStart *uint32
	// Block is how many counter values each P reserves at a time. 0 or 1
	// means one value per ID and strict process-wide order within a second;
	// n > 1 means per-P blocks of n values, with IDs rising only within a
	// block.
	Block int
	// Now returns the current Unix second; nil means the coarse system clock.
	Now func() int64
	// WaitUntil blocks until Now would return at least second; nil means
	// sleeping on the system clock.
	WaitUntil func(second int64)
	// ShardBits, when not 0, makes Next return each ID's key in the shard
	// form of that many bits (see package scatter), in [1, scatter.MaxBits].
	ShardBits uint
}

// Generator makes ObjectIDs as the package doc describes. It is safe for
// concurrent use.
type Generator struct {
	// Read on every call, written only when a second opens.
	window atomic.Pointer[window]
	ranges *procpin.Ranges // each P's block; nil for one value per ID
	block  uint64          // values reserved at a time (1 when ranges is nil)
	unique [5]byte
	// uniqueBits is unique times 2^24: bytes 4 to 11 with a zero counter.
	uniqueBits uint64
	fixed      bool         // unique must not change: no carry, wait instead
	now        func() int64 // nil: coarseclock.UnixSeconds, called directly
	wait       func(second int64)
	shard      uint // Config.ShardBits

	// counter is written by every call in strict mode: on its own cache
	// lines, so that reading the fields above does not contend with it.
	_       [128]byte
	counter atomic.Uint64
	_       [120]byte
}

// window is the mapping of counter values onto IDs in one second. Windows
// are replaced, never changed, and their seconds only increase, so a second
// identifies its window.
//
// A counter value v >= first, taken while the window is current, becomes the
// ID (second, base + (v - first)) if v - first < room. Every value an ID of
// this second uses was taken after the window was installed (so is at least
// first), and the map is increasing, so the second's IDs are distinct and
// rise with the counter.
type window struct {
	second int64
	first  uint64 // the counter value of the second's first ID
	field  uint64 // the counter field of that ID, in [0, 2^24)
	base   uint64 // bytes 4 to 11 of that ID: uniqueBits + field
	room   uint64 // values usable: 2^24 - field when fixed, else no limit
}

// New returns a generator with the given configuration.
func New(c Config) *Generator {
	g := &Generator{now: c.Now, wait: c.WaitUntil, block: 1, shard: c.ShardBits}
	if g.wait == nil {
		g.wait = sleepUntil
	}
	if c.Block > 1 {
		g.block = uint64(c.Block)
		g.ranges = procpin.NewRanges()
	}
	if c.Unique != nil {
		g.unique = *c.Unique
		g.fixed = true
	} else {
		rand.Read(g.unique[:]) // never fails: since Go 1.24 a failure crashes the program
	}
	var u [8]byte
	copy(u[:5], g.unique[:])
	g.uniqueBits = binary.BigEndian.Uint64(u[:]) // unique << 24
	var start uint32
	if c.CounterStart != nil {
		start = *c.CounterStart
	} else {
		var b [4]byte
		rand.Read(b[:])
		start = binary.BigEndian.Uint32(b[:])
	}
	// A window before all time whose successor starts at the counter start.
	g.window.Store(&window{second: math.MinInt64, field: uint64(start % CounterSpace)})
	return g
}

// Unique returns the generator's 5-byte process-unique value: the one its
// IDs carry unless the counter carried into it (see the package doc).
func (g *Generator) Unique() [5]byte { return g.unique }

// Next returns a new ObjectID. It sleeps only with a fixed process-unique
// value whose second is used up.
//
// The common case is one load of the clock and of the current window and
// one atomic add (or, with blocks, the next value of the calling P's
// block), after checking that the window's second is not behind the clock
// and that the value fits the window.
func (g *Generator) Next() (id [12]byte) {
	var now int64
	if g.now == nil {
		now = coarseclock.UnixSeconds() // inlined, unlike g.clock
	} else {
		now = g.now()
	}
	if g.ranges == nil {
		w := g.window.Load()
		// Read the window before the add, which is a full barrier. As the
		// window was loaded before the add, v >= first.
		second, first, room, base := w.second, w.first, w.room, w.base
		if now <= second {
			v := g.counter.Add(1) - 1
			if off := v - first; off < room {
				g.put(&id, second, base+off)
				g.sync(v)
				return id
			}
		}
		return g.nextSlow(now)
	}
	p := procpin.Pin()
	next, end := g.ranges.Get(p)
	w := g.window.Load()
	// A block reserved before the window opened holds values below first.
	if off := next - w.first; next < end && next >= w.first && off < w.room && now <= w.second {
		g.ranges.Set(p, next+1, end)
		procpin.Unpin()
		g.put(&id, w.second, w.base+off)
		g.sync(next)
		return id
	}
	procpin.Unpin()
	return g.nextSlow(now)
}

// nextSlow makes an ID when the fast path could not: the clock passed the
// window's second, the P's block is used up or stale, or a fixed window is
// full. With blocks it works pinned to one P, so a block it reserves goes to
// the range it checked, and unpins only to wait.
func (g *Generator) nextSlow(now int64) [12]byte {
	for {
		p := -1
		if g.ranges != nil {
			p = procpin.Pin()
		}
		second, v, waitPast := g.refill(p, now)
		if p >= 0 {
			procpin.Unpin()
		}
		if waitPast == nil {
			return g.build(second, v)
		}
		g.waitPast(waitPast.second)
		now = g.clock()
	}
}

// refill returns the second and bytes 4 to 11 of an ID made at time now on
// P p (-1 without blocks), to which the caller is pinned. With blocks it
// first retries the P's block (the goroutine may have moved to another P),
// then reserves a new block and gives it to the P. It opens a new window
// when the clock has passed the current one. When a fixed window is used
// up it returns that window as waitPast, and nil otherwise. It never blocks.
func (g *Generator) refill(p int, now int64) (second int64, v uint64, waitPast *window) {
	size := g.block
	if p >= 0 {
		next, end := g.ranges.Get(p)
		w := g.window.Load()
		if off := next - w.first; next < end && next >= w.first && off < w.room && now <= w.second {
			g.ranges.Set(p, next+1, end)
			return w.second, w.base + off, nil
		}
		if p >= g.ranges.Len() { // GOMAXPROCS grew: a block could not be kept
			size = 1
		}
	}
	first := g.counter.Add(size) - size
	for {
		w := g.window.Load()
		if now > w.second {
			nw := g.successor(w, now, first)
			if !g.window.CompareAndSwap(w, nw) {
				continue // another goroutine opened a window: check against it
			}
			w = nw
		}
		if first < w.first { // reserved before w opened: take newer values
			first = g.counter.Add(size) - size
			continue
		}
		off := first - w.first
		if off >= w.room {
			return 0, 0, w
		}
		if p >= 0 {
			g.ranges.Set(p, first+1, first+size)
		}
		return w.second, w.base + off, nil
	}
}

// successor returns the window of second now that follows w and whose first
// value is first. Its counter field continues from w's and restarts at 0
// once it has reached 2^24.
func (g *Generator) successor(w *window, now int64, first uint64) *window {
	field := w.field
	if w.second != math.MinInt64 {
		field += first - w.first
	}
	if field >= CounterSpace {
		field = 0
	}
	room := uint64(math.MaxUint64)
	if g.fixed {
		room = CounterSpace - field
	}
	return &window{second: now, first: first, field: field, base: g.uniqueBits + field, room: room}
}

// sync keeps the coarse clock current while IDs come fast: once every
// coarseclock.SyncEvery counter values it reads the wall clock, so the
// second of an ID is never older than the clock read SyncEvery IDs before,
// even while the coarse clock's timer waits for a busy P.
func (g *Generator) sync(v uint64) {
	if v%coarseclock.SyncEvery == 0 && g.now == nil {
		coarseclock.SyncSeconds()
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

// build returns the ID of second whose bytes 4 to 11 are v. Next writes the
// same bytes into its result directly, which saves a copy on the fast path.
func (g *Generator) build(second int64, v uint64) [12]byte {
	var id [12]byte
	g.put(&id, second, v)
	return id
}

// put writes the ID of second and bytes 4 to 11 v into id as bytes 0 to 7
// and 8 to 11, the split in which callers copy a [12]byte: writing it as 4
// and 8 bytes instead makes the copy's first load span two stores, which
// the CPU cannot forward, and stalls it (12.6 -> 7.6 ns per ID measured).
// With ShardBits it writes the key, made from the words before they are
// stored.
func (g *Generator) put(id *[12]byte, second int64, v uint64) {
	hi := uint64(uint32(second))<<32 | v>>32
	if g.shard != 0 {
		hi = scatter.ObjectIDWords(hi, uint32(v), g.shard)
	}
	binary.BigEndian.PutUint64(id[0:8], hi)
	binary.BigEndian.PutUint32(id[8:12], uint32(v))
}

// Default returns the process-wide generator behind types.NewObjectID: a
// random process-unique value and strict order.
var Default = sync.OnceValue(func() *Generator { return New(Config{}) })

// Package uuidgen makes version 7 UUIDs (RFC 9562) for types.NewUUIDv7. It
// returns plain [16]byte values so that package types can use it without an
// import cycle; tests make generators with their own clock through [New].
//
// # Layout
//
//	bytes 0-5   Unix time in milliseconds, big-endian (48 bits)
//	byte  6     version 7 in the high 4 bits
//	bytes 6-9   a 30-bit counter: 12 bits after the version, then, after
//	            the 2 variant bits (10) of byte 8, 18 more bits
//	bytes 9-15  44 random bits, new for every ID
//
// # Order
//
// Every ID takes the next value of one shared 64-bit counter, and each
// millisecond maps the values it uses onto the 30-bit counter field by
// adding a fixed offset, a random number below 2^29 drawn when the
// millisecond opens. So within a millisecond IDs rise with the shared
// counter, and each ID is above every ID the generator returned before the
// call began, across goroutines. The millisecond never moves backwards: if the clock is
// set back, IDs keep the last millisecond used, and its counter field keeps
// rising, until the clock passes it. A millisecond holds at least 2^29 IDs;
// should one fill up, IDs move on to the next millisecond before the clock
// does.
//
// # Across generators
//
// Generators share no state: IDs of different generators (processes) are not
// ordered within a millisecond, and are unique with overwhelming
// probability, since two IDs of the same millisecond from two generators
// are equal only if their counter fields are equal (each generator starts
// the millisecond at a random offset) and so are their 44 random bits.
//
// # Randomness
//
// The random offsets and bits come from math/rand/v2's top-level functions:
// the runtime's ChaCha8 generator of each thread, seeded from the operating
// system's entropy. (A ChaCha8 generator per P, pinned through a linkname to
// the runtime, cost more: 9.7 to 13 CPU ns per value against 7.2 to 10.5
// here, on 1 and 2 goroutines, and showed no gain on docs/benchmarks.md's
// UUIDv7 rows run beside this version, so it went.)
package uuidgen

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/idkit-go/idkit/internal/coarseclock"
	"github.com/idkit-go/idkit/internal/scatter"
)

const (
	counterBits = 30
	// offsetLimit bounds a millisecond's random counter start, leaving at
	// least 2^counterBits - offsetLimit values of room.
	offsetLimit = 1 << (counterBits - 1)
	fieldSpace  = 1 << counterBits
	randomBits  = 44
)

// Config holds a generator's settings; the zero Config uses the coarse
// system clock.
type Config struct {
	// Now returns the current Unix time in milliseconds; nil means the
	// coarse system clock.
	Now func() int64
}

// Generator makes version 7 UUIDs as the package doc describes. It is safe
// for concurrent use.
type Generator struct {
	// Read on every call, written only when a millisecond opens.
	window atomic.Pointer[window]
	now    func() int64 // nil: coarseclock.UnixMilli, called directly

	// counter is written by every call: on its own cache lines, so that
	// reading the fields above does not contend with it.
	_       [128]byte
	counter atomic.Uint64
	_       [120]byte
}

// window is the mapping of counter values onto IDs in one millisecond.
// Windows are replaced, never changed, and their milliseconds only
// increase. A counter value v >= first taken while the window is current
// becomes the ID (ms, base + (v - first)) if v - first < room.
type window struct {
	ms    int64
	first uint64 // the counter value of the millisecond's first ID
	base  uint64 // the counter field of that ID, below offsetLimit
	room  uint64 // fieldSpace - base
}

// New returns a generator with the given configuration.
func New(c Config) *Generator {
	g := &Generator{now: c.Now}
	// A window before all time: the first call opens a real one.
	g.window.Store(&window{ms: math.MinInt64})
	return g
}

// Next returns a new version 7 UUID. It never blocks.
func (g *Generator) Next() [16]byte { return bytes16(g.NextWords(0)) }

// NextWords returns a new version 7 UUID as its bytes 0 to 7 (hi) and 8
// to 15 (lo) read big-endian, or with s in [1, scatter.MaxBits] the key in
// shard form of one: scatter.UUID of it with s shard bits and version 8,
// made from its words before they are written. It never blocks.
//
// The words come back in registers, where a [16]byte is returned through
// memory: a caller that writes them where it keeps the UUID stores it
// once, and no copy on the way loads 16 bytes that two 8-byte stores
// wrote, which the CPU cannot forward to the load (it waits for them to
// reach the cache).
func (g *Generator) NextWords(s uint) (hi, lo uint64) {
	var now int64
	if g.now == nil {
		now = coarseclock.UnixMilli()
	} else {
		now = g.now()
	}
	w := g.window.Load()
	// Read the window before the add, which is a full barrier: the value
	// taken is then at least first.
	ms, first, base, room := w.ms, w.first, w.base, w.room
	if now <= ms {
		v := g.counter.Add(1) - 1
		if off := v - first; off < room {
			if v%coarseclock.SyncEvery == 0 && g.now == nil {
				// Keep the coarse clock current while IDs come fast, even
				// while its timer waits for a busy P.
				coarseclock.SyncMilli()
			}
			hi, lo = build(ms, base+off, rand.Uint64())
			return key(hi, lo, s), lo
		}
	}
	return g.nextSlow(now, s)
}

// nextSlow makes an ID when the clock passed the window's millisecond or
// the window is full: it opens a new window, as many goroutines may at
// once, and takes a value in whichever window is current.
func (g *Generator) nextSlow(now int64, s uint) (hi, lo uint64) {
	v := g.counter.Add(1) - 1
	for {
		w := g.window.Load()
		if now > w.ms || v-w.first >= w.room && v >= w.first {
			base := rand.Uint64() % offsetLimit
			nw := &window{ms: max(now, w.ms+1), first: v, base: base, room: fieldSpace - base}
			if !g.window.CompareAndSwap(w, nw) {
				continue // another goroutine opened a window: check against it
			}
			w = nw
		}
		if v < w.first { // taken before w opened: take a newer value
			v = g.counter.Add(1) - 1
			continue
		}
		if off := v - w.first; off < w.room {
			hi, lo = build(w.ms, w.base+off, rand.Uint64())
			return key(hi, lo, s), lo
		}
	}
}

// build returns the words (see NextWords) of the UUID of millisecond ms,
// counter field field and random bits r (the low randomBits are used).
func build(ms int64, field, r uint64) (hi, lo uint64) {
	// ms(48) | 0111 | field's high 12 bits
	hi = uint64(ms)<<16 | 0x7000 | field>>18
	// 10 | field's low 18 bits | 44 random bits
	lo = 1<<63 | (field&(1<<18-1))<<randomBits | r&(1<<randomBits-1)
	return hi, lo
}

// key returns hi, the first word of a UUID whose second is lo, or with s
// > 0 the first word of its key with s shard bits (see
// scatter.UUIDWords). It is apart from build so that each inlines where
// it is called: together they pass the inlining budget.
func key(hi, lo uint64, s uint) uint64 {
	if s != 0 {
		hi = scatter.UUIDWords(hi, lo, s, 8)
	}
	return hi
}

// bytes16 returns the UUID of the words hi and lo (see NextWords).
func bytes16(hi, lo uint64) (id [16]byte) {
	binary.BigEndian.PutUint64(id[0:8], hi)
	binary.BigEndian.PutUint64(id[8:16], lo)
	return id
}

// Default returns the process-wide generator behind types.NewUUIDv7.
var Default = sync.OnceValue(func() *Generator { return New(Config{}) })

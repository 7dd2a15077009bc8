package objectidgen_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idkit-go/idkit/internal/objectidgen"
	"github.com/idkit-go/idkit/internal/procpin"
)

const second0 = 1_767_323_045 // 2026-01-02T03:04:05Z

// fakeClock is an injected clock; waitUntil moves it forward.
type fakeClock struct {
	s     atomic.Int64
	waits atomic.Int64
}

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.s.Store(second0)
	return c
}

func (c *fakeClock) now() int64 { return c.s.Load() }

func (c *fakeClock) waitUntil(s int64) {
	c.waits.Add(1)
	for {
		cur := c.s.Load()
		if cur >= s || c.s.CompareAndSwap(cur, s) {
			return
		}
	}
}

func (c *fakeClock) config(c0 objectidgen.Config) objectidgen.Config {
	c0.Now, c0.WaitUntil = c.now, c.waitUntil
	return c0
}

func ptr[T any](v T) *T { return &v }

func sec(id [12]byte) int64      { return int64(binary.BigEndian.Uint32(id[0:4])) }
func unique(id [12]byte) [5]byte { return [5]byte(id[4:9]) }
func counter(id [12]byte) uint32 { return binary.BigEndian.Uint32(id[8:12]) & (1<<24 - 1) }
func compare(a, b [12]byte) int  { return bytes.Compare(a[:], b[:]) }
func plus(u [5]byte, n uint64) [5]byte {
	var b [8]byte
	copy(b[3:], u[:])
	binary.BigEndian.PutUint64(b[:], binary.BigEndian.Uint64(b[:])+n)
	return [5]byte(b[3:])
}

var modes = []struct {
	name  string
	block int
}{{"strict", 0}, {"blocks", 64}}

// TestStrictOrderOneGoroutineAmongOthers makes IDs on one goroutine, first
// one every 200 µs and then in a tight loop, while others make IDs too: by default each ID is greater than the one before,
// however the goroutine moves between Ps.
func TestStrictOrderOneGoroutineAmongOthers(t *testing.T) {
	for _, g := range []*objectidgen.Generator{objectidgen.Default(), objectidgen.New(objectidgen.Config{Block: 1})} {
		var stop atomic.Bool
		var wg sync.WaitGroup
		for range 2 * runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for !stop.Load() {
					for range 100 {
						g.Next()
					}
					runtime.Gosched()
				}
			})
		}
		prev := g.Next()
		deadline := time.Now().Add(600 * time.Millisecond)
		for i := 0; time.Now().Before(deadline); i++ {
			switch {
			case time.Until(deadline) > 300*time.Millisecond:
				time.Sleep(200 * time.Microsecond) // wake up on any P
			case i%100 == 0:
				runtime.Gosched() // let the scheduler move this goroutine between Ps
			}
			id := g.Next()
			if compare(id, prev) <= 0 {
				stop.Store(true)
				wg.Wait()
				t.Fatalf("ID %d: %x not after %x", i, id, prev)
			}
			prev = id
		}
		stop.Store(true)
		wg.Wait()
	}
}

// TestStrictOrderAcrossGoroutines checks the order calls return in: each
// goroutine's IDs rise, and an ID made by a call that started after another
// call returned is greater than that call's ID.
func TestStrictOrderAcrossGoroutines(t *testing.T) {
	g := objectidgen.New(objectidgen.Config{})
	type call struct {
		start, end uint64
		id         [12]byte
	}
	var ticket atomic.Uint64
	workers, per := 4*runtime.GOMAXPROCS(0), 20_000
	calls := make([][]call, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			mine := make([]call, per)
			for i := range mine {
				start := ticket.Add(1)
				id := g.Next()
				mine[i] = call{start, ticket.Add(1), id}
			}
			calls[w] = mine
		})
	}
	wg.Wait()
	var all []call
	for w, mine := range calls {
		for i := 1; i < len(mine); i++ {
			if compare(mine[i].id, mine[i-1].id) <= 0 {
				t.Fatalf("goroutine %d: ID %d %x not after %x", w, i, mine[i].id, mine[i-1].id)
			}
		}
		all = append(all, mine...)
	}
	// For each call, the greatest ID of the calls that returned before it
	// started must be smaller than its ID.
	byEnd := slices.Clone(all)
	slices.SortFunc(byEnd, func(a, b call) int { return cmp.Compare(a.end, b.end) })
	maxBefore := make([][12]byte, len(byEnd)) // max ID among byEnd[:i+1]
	for i, c := range byEnd {
		maxBefore[i] = c.id
		if i > 0 && compare(maxBefore[i-1], c.id) > 0 {
			maxBefore[i] = maxBefore[i-1]
		}
	}
	for _, c := range all {
		n, _ := slices.BinarySearchFunc(byEnd, c.start, func(e call, start uint64) int { return cmp.Compare(e.end, start) })
		if n > 0 && compare(maxBefore[n-1], c.id) >= 0 {
			t.Fatalf("ID %x is not after %x, made by a call that returned before it started", c.id, maxBefore[n-1])
		}
	}
}

// TestFixedUniqueWaitsForNextSecond uses up a second with an assigned
// process-unique value: the counter never wraps within the second, Next
// waits for the next second, and that second's counter starts at 0.
func TestFixedUniqueWaitsForNextSecond(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			clock := newFakeClock()
			u := [5]byte{1, 2, 3, 4, 5}
			const room = 1000
			g := objectidgen.New(clock.config(objectidgen.Config{Unique: &u, CounterStart: ptr[uint32](1<<24 - room), Block: m.block}))
			var ids [][12]byte
			for {
				id := g.Next()
				if sec(id) != second0 {
					ids = append(ids, id)
					break
				}
				ids = append(ids, id)
			}
			n := len(ids) - 1
			if min := room - m.block*runtime.GOMAXPROCS(0); n > room || n < min {
				t.Fatalf("%d IDs in the first second, want %d to %d", n, min, room)
			}
			if clock.waits.Load() == 0 || clock.now() != second0+1 {
				t.Fatalf("did not wait for the next second: %d waits, clock at %d", clock.waits.Load(), clock.now())
			}
			for i, id := range ids {
				if unique(id) != u {
					t.Fatalf("ID %x: process-unique value changed", id)
				}
				if i > 0 && compare(id, ids[i-1]) <= 0 && m.block == 0 {
					t.Fatalf("ID %x not after %x", id, ids[i-1])
				}
				if i < n && counter(id) < 1<<24-room {
					t.Fatalf("ID %x: counter wrapped within the second", id)
				}
			}
			if last := ids[n]; sec(last) != second0+1 || (m.block == 0 && counter(last) != 0) {
				t.Fatalf("first ID of the next second %x: second %d counter %d", last, sec(last), counter(last))
			}
		})
	}
}

// TestRandomUniqueCarries uses up a second's counter with a random
// process-unique value: Next does not wait; the counter carries into the
// process-unique value, so IDs keep rising within the second; the next
// second starts the counter at 0 with the original value.
func TestRandomUniqueCarries(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			clock := newFakeClock()
			const room = 1000
			g := objectidgen.New(clock.config(objectidgen.Config{CounterStart: ptr[uint32](1<<24 - room), Block: m.block}))
			u := g.Unique()
			ids := make([][12]byte, 3*room)
			for i := range ids {
				ids[i] = g.Next()
			}
			if clock.waits.Load() != 0 {
				t.Fatal("waited with a random process-unique value")
			}
			carried := 0
			for i, id := range ids {
				if sec(id) != second0 {
					t.Fatalf("ID %x: second changed", id)
				}
				switch unique(id) {
				case u:
				case plus(u, 1):
					carried++
				default:
					t.Fatalf("ID %x: process-unique value %x, want %x or one more", id, unique(id), u)
				}
				if i > 0 && m.block == 0 && compare(id, ids[i-1]) <= 0 {
					t.Fatalf("ID %x not after %x", id, ids[i-1])
				}
			}
			if carried < room {
				t.Fatalf("%d of %d IDs carried, want at least %d", carried, len(ids), room)
			}
			if m.block == 0 {
				if counter(ids[room-1]) != 1<<24-1 || counter(ids[room]) != 0 || unique(ids[room]) != plus(u, 1) {
					t.Fatalf("IDs at the carry: %x, %x", ids[room-1], ids[room])
				}
			}
			clock.s.Add(1)
			id := g.Next()
			if sec(id) != second0+1 || unique(id) != u || (m.block == 0 && counter(id) != 0) {
				t.Fatalf("first ID of the next second %x", id)
			}
			if id2 := g.Next(); m.block == 0 && counter(id2) != 1 {
				t.Fatalf("second ID of the next second %x", id2)
			}
		})
	}
}

// TestCounterContinuesAcrossSeconds: below the wrap, each second's counter
// continues from the last one's.
func TestCounterContinuesAcrossSeconds(t *testing.T) {
	clock := newFakeClock()
	g := objectidgen.New(clock.config(objectidgen.Config{CounterStart: ptr[uint32](7)}))
	for i := range uint32(5) {
		if c := counter(g.Next()); c != 7+2*i {
			t.Fatalf("ID %d: counter %d, want %d", i, c, 7+2*i)
		}
		if c := counter(g.Next()); c != 8+2*i {
			t.Fatalf("ID %d: counter %d, want %d", i, c, 8+2*i)
		}
		clock.s.Add(1)
	}
}

// TestConcurrentUnique makes IDs on many goroutines across carries (random
// value) or waits (fixed value) and checks that no two are equal and that,
// in strict mode, each goroutine's IDs rise.
func TestConcurrentUnique(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		for _, m := range modes {
			name := m.name + "/random"
			if fixed {
				name = m.name + "/fixed"
			}
			t.Run(name, func(t *testing.T) {
				clock := newFakeClock()
				c := objectidgen.Config{CounterStart: ptr[uint32](1<<24 - 30_000), Block: m.block}
				if fixed {
					c.Unique = &[5]byte{9, 8, 7, 6, 5}
				}
				g := objectidgen.New(clock.config(c))
				workers, per := 4*runtime.GOMAXPROCS(0), 25_000
				if testing.Short() {
					per = 5_000
				}
				all := make([][12]byte, workers*per)
				var wg sync.WaitGroup
				for w := range workers {
					wg.Go(func() {
						mine := all[w*per : (w+1)*per]
						for i := range mine {
							mine[i] = g.Next()
							if i > 0 && m.block == 0 && compare(mine[i], mine[i-1]) <= 0 {
								t.Errorf("goroutine %d: %x not after %x", w, mine[i], mine[i-1])
								return
							}
						}
					})
				}
				wg.Wait()
				slices.SortFunc(all, compare)
				for i := 1; i < len(all); i++ {
					if all[i] == all[i-1] {
						t.Fatalf("duplicate ID %x among %d", all[i], len(all))
					}
				}
				if waited := clock.waits.Load() > 0; waited != fixed {
					t.Fatalf("waited: %v, want %v", waited, fixed)
				}
			})
		}
	}
}

// TestBlocksOnNewP: Ps created after the generator (GOMAXPROCS grew) have no
// block; they take single values rather than reserving blocks they cannot
// keep, so a fixed second still holds nearly all its counter values.
func TestBlocksOnNewP(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(old)
	for range 10 { // until the scheduler has run goroutines on the new Ps
		runtime.GOMAXPROCS(old)
		clock := newFakeClock()
		const room = 50_000
		g := objectidgen.New(clock.config(objectidgen.Config{Unique: &[5]byte{1}, CounterStart: ptr[uint32](1<<24 - room), Block: 64}))
		runtime.GOMAXPROCS(4 * old)
		var n, onNew atomic.Int64
		var wg sync.WaitGroup
		for range 16 * old {
			wg.Go(func() {
				for i := 0; ; i++ {
					if i%10 == 0 {
						runtime.Gosched() // move between Ps
					}
					p := procpin.Pin()
					procpin.Unpin()
					if sec(g.Next()) != second0 {
						return
					}
					n.Add(1)
					if p >= old {
						onNew.Add(1) // most likely made on a P without a block
					}
				}
			})
		}
		wg.Wait()
		if onNew.Load() == 0 {
			continue
		}
		if min := int64(room - 64*old); n.Load() < min {
			t.Fatalf("%d IDs in the second (%d on new Ps), want at least %d", n.Load(), onNew.Load(), min)
		}
		return
	}
	t.Skip("no ID was made on a new P")
}

func TestClockBackwardsKeepsLastSecond(t *testing.T) {
	for _, m := range modes {
		clock := newFakeClock()
		g := objectidgen.New(clock.config(objectidgen.Config{Block: m.block}))
		a := g.Next()
		clock.s.Store(second0 - 3600)
		b := g.Next()
		if sec(b) != second0 || compare(b, a) <= 0 {
			t.Fatalf("%s: after the clock went back: %x after %x", m.name, b, a)
		}
		clock.s.Store(second0 + 2)
		if c := g.Next(); sec(c) != second0+2 {
			t.Fatalf("%s: after the clock recovered: %x", m.name, c)
		}
	}
}

func TestSystemClock(t *testing.T) {
	before := time.Now().Unix()
	id := objectidgen.Default().Next()
	if s := sec(id); s < before-1 || s > time.Now().Unix() {
		t.Fatalf("second %d, now %d", s, before)
	}
	if a, b := objectidgen.Default(), objectidgen.Default(); a != b {
		t.Fatal("Default returned two generators")
	}
}

func TestNextAllocatesNothing(t *testing.T) {
	for _, m := range modes {
		g := objectidgen.New(objectidgen.Config{Block: m.block})
		if n := testing.AllocsPerRun(10_000, func() { g.Next() }); n != 0 {
			t.Errorf("%s: %v allocations per ID", m.name, n)
		}
	}
}

func BenchmarkNext(b *testing.B) {
	for _, m := range modes {
		g := objectidgen.New(objectidgen.Config{Block: m.block})
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g.Next()
			}
		})
		b.Run(m.name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					g.Next()
				}
			})
		})
	}
}

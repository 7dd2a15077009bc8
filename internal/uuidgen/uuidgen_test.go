package uuidgen

import (
	"bytes"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func msOf(id [16]byte) int64 {
	var b [8]byte
	copy(b[2:], id[:6])
	return int64(binary.BigEndian.Uint64(b[:]))
}

func fieldOf(id [16]byte) uint64 {
	hi, lo := binary.BigEndian.Uint64(id[:8]), binary.BigEndian.Uint64(id[8:])
	return (hi&0xfff)<<18 | lo>>randomBits&(1<<18-1)
}

func checkV7(t *testing.T, id [16]byte) {
	t.Helper()
	if id[6]>>4 != 7 || id[8]>>6 != 2 {
		t.Fatalf("%x: version %d, variant %b", id, id[6]>>4, id[8]>>6)
	}
}

func TestLayout(t *testing.T) {
	var now atomic.Int64
	now.Store(1_700_000_000_123)
	g := New(Config{Now: now.Load})
	a := g.Next()
	checkV7(t, a)
	if msOf(a) != 1_700_000_000_123 {
		t.Fatalf("ms %d", msOf(a))
	}
	if fieldOf(a) >= offsetLimit {
		t.Fatalf("first field %d not below %d", fieldOf(a), offsetLimit)
	}
	b := g.Next()
	if msOf(b) != msOf(a) || fieldOf(b) != fieldOf(a)+1 {
		t.Fatalf("second ID of the millisecond: %x after %x", b, a)
	}
	// Real time: the default generator's millisecond is the clock's, which
	// the coarse clock may show late while its timer waits for a CPU.
	before := time.Now().UnixMilli()
	c := Default().Next()
	after := time.Now().UnixMilli()
	checkV7(t, c)
	if ms := msOf(c); ms < before-1000 || ms > after+2 {
		t.Fatalf("default ms %d, clock %d..%d", ms, before, after)
	}
}

func TestRisesWhileTheClockStepsBack(t *testing.T) {
	var now atomic.Int64
	now.Store(5_000)
	g := New(Config{Now: now.Load})
	prev := g.Next()
	for i, ms := range []int64{5_000, 4_000, 4_500, 5_000, 5_001, 3_000, 5_002, 5_002} {
		now.Store(ms)
		for range 100 {
			id := g.Next()
			checkV7(t, id)
			if bytes.Compare(id[:], prev[:]) <= 0 {
				t.Fatalf("step %d (clock %d): %x not above %x", i, ms, id, prev)
			}
			if got := msOf(id); got < ms && got != msOf(prev) {
				t.Fatalf("step %d: ms %d went back", i, got)
			}
			prev = id
		}
	}
	if msOf(prev) != 5_002 {
		t.Fatalf("final ms %d, want 5002", msOf(prev))
	}
}

func TestFullMillisecondMovesOn(t *testing.T) {
	g := New(Config{Now: func() int64 { return 1000 }})
	a := g.Next()
	// Use up the rest of the window by advancing the counter directly.
	w := g.window.Load()
	g.counter.Add(w.room - 2) // one value left: a's was the first
	b := g.Next()
	if msOf(b) != 1000 || fieldOf(b) != fieldSpace-1 {
		t.Fatalf("last ID of the millisecond: ms %d field %d", msOf(b), fieldOf(b))
	}
	c := g.Next()
	if msOf(c) != 1001 || bytes.Compare(c[:], b[:]) <= 0 || bytes.Compare(b[:], a[:]) <= 0 {
		t.Fatalf("after a full millisecond: %x %x %x", a, b, c)
	}
}

// TestConcurrentUniqueAndOrdered checks that an ID is above every ID
// returned before its call began, across goroutines: each call and the
// recording of its ID happen under one lock, which orders the calls.
func TestConcurrentUniqueAndOrdered(t *testing.T) {
	var now atomic.Int64
	now.Store(10_000)
	g := New(Config{Now: now.Load})
	const workers, per = 8, 20000
	var mu sync.Mutex
	var seq [][16]byte
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range per {
				if w == 0 && i%500 == 0 {
					now.Add(int64(i%3) - 1) // forward, back, still
				}
				mu.Lock()
				seq = append(seq, g.Next())
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	seen := make(map[[16]byte]bool, len(seq))
	for i, id := range seq {
		checkV7(t, id)
		if seen[id] {
			t.Fatalf("duplicate %x", id)
		}
		seen[id] = true
		if i > 0 && bytes.Compare(id[:], seq[i-1][:]) <= 0 {
			t.Fatalf("%x after %x", id, seq[i-1])
		}
	}
	// Without the lock: unique, and each goroutine's own IDs rise.
	var all sync.Map
	for range workers {
		wg.Go(func() {
			var prev [16]byte
			for range per {
				id := g.Next()
				if bytes.Compare(id[:], prev[:]) <= 0 {
					t.Errorf("%x after %x in one goroutine", id, prev)
					return
				}
				prev = id
				if _, dup := all.LoadOrStore(id, true); dup {
					t.Errorf("duplicate %x", id)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestRandomBitsDiffer(t *testing.T) {
	g := New(Config{Now: func() int64 { return 1 }})
	h := New(Config{Now: func() int64 { return 1 }})
	a, b := g.Next(), h.Next()
	if a == b || fieldOf(a) == fieldOf(b) && bytes.Equal(a[9:], b[9:]) {
		t.Fatalf("two generators made %x and %x", a, b)
	}
	// The 44 random bits of consecutive IDs are not a counter.
	x, y := g.Next(), g.Next()
	if bytes.Equal(x[10:], y[10:]) {
		t.Fatalf("random bits repeat: %x %x", x, y)
	}
}

func BenchmarkNext(b *testing.B) {
	g := New(Config{})
	var acc byte
	for b.Loop() {
		acc ^= g.Next()[15]
	}
	_ = acc
}

func BenchmarkNextParallel(b *testing.B) {
	g := New(Config{})
	b.RunParallel(func(pb *testing.PB) {
		var acc byte
		for pb.Next() {
			acc ^= g.Next()[15]
		}
		_ = acc
	})
}

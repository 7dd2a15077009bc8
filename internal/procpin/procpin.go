// Package procpin pins goroutines to their P (the scheduler's processor) and
// hands out values of a shared counter in blocks kept per P, so goroutines on
// different cores stop writing one cache line for every value. The pinning
// is the runtime's own, the one sync.Pool uses.
//
// The linkname pays for itself: BenchmarkTake (plain_test.go) runs
// Blocks.Take beside the plain version, blocks kept in a sync.Pool, on 2
// goroutines, and read 5.5 to 8.2 CPU ns per value pinned against 14.8 to
// 19.7 pooled (wall time 16 to 24 ns against 44 to 66 on a 2-core machine
// at load 30). The per-CPU ObjectID row of docs/benchmarks.md, 4.3 ns per
// ID, would take that difference on every ID: more than twice the time.
package procpin

import (
	"runtime"
	"sync/atomic"
	_ "unsafe" // for go:linkname
)

// procPin pins the calling goroutine to its P, disabling preemption, and
// returns the P's index. procUnpin undoes it. The runtime keeps both for
// linkname use (go.dev/issue/67401).
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// Pin pins the calling goroutine to its P and returns the P's index, in
// [0, GOMAXPROCS). Until [Unpin], no other goroutine runs on that P, so state
// kept per P can be used without locks. The goroutine must not block, and
// must not call code that may block, while pinned.
func Pin() int { return procPin() }

// Unpin undoes [Pin].
func Unpin() { procUnpin() }

// Ranges holds one range of values, [next, end), per P. The range of P p
// may only be read or set by a goroutine pinned to p ([Pin]), which
// excludes every other goroutine, so it needs no locking.
type Ranges struct {
	shards []block
}

// block is one P's range. The race detector cannot see the exclusion that
// pinning gives, so race builds access it atomically (see block_race.go).
type block struct {
	next, end uint64
	_         [128 - 16]byte // keep ranges on separate cache lines
}

// NewRanges returns empty ranges for each of the current GOMAXPROCS Ps. A P
// created later (GOMAXPROCS grew) has none: Get returns an empty range for
// it and Set does nothing.
func NewRanges() *Ranges {
	return &Ranges{shards: make([]block, runtime.GOMAXPROCS(0))}
}

// Len returns the number of Ps that have a range: the GOMAXPROCS of
// [NewRanges]'s call. A P whose index is Len or more has none.
func (r *Ranges) Len() int { return len(r.shards) }

// Get returns P p's range. The caller must be pinned to p.
func (r *Ranges) Get(p int) (next, end uint64) {
	if p >= len(r.shards) {
		return 0, 0
	}
	return r.shards[p].load()
}

// Set sets P p's range, reporting false when p has none (see [NewRanges]).
// The caller must be pinned to p.
func (r *Ranges) Set(p int, next, end uint64) bool {
	if p >= len(r.shards) {
		return false
	}
	r.shards[p].store(next, end)
	return true
}

// Blocks hands out distinct values of a shared counter, each P taking a
// block of them at a time. Values come out increasing within a block, but
// not across Ps: a value can be smaller than one returned earlier from
// another P's block. It is safe for concurrent use.
type Blocks struct {
	size   uint64
	ranges *Ranges
}

// NewBlocks returns Blocks that reserve size values at a time (at least 1).
func NewBlocks(size uint64) *Blocks {
	return &Blocks{size: max(size, 1), ranges: NewRanges()}
}

// Size returns the number of values a P reserves at a time.
func (b *Blocks) Size() uint64 { return b.size }

// Take returns a value of counter that no call has returned before: the next
// value of the calling P's block, or the first of a new block reserved by
// adding Size to counter. On a P without a range (see [NewRanges]) it takes
// single values from counter. Every value of counter that Take reserves is
// used by this Blocks only.
func (b *Blocks) Take(counter *atomic.Uint64) uint64 {
	p := procPin()
	next, end := b.ranges.Get(p)
	if next == end {
		size := b.size
		if p >= len(b.ranges.shards) {
			size = 1
		}
		next = counter.Add(size) - size
		end = next + size
	}
	b.ranges.Set(p, next+1, end)
	procUnpin()
	return next
}

// Package procpin pins goroutines to their P (the scheduler's processor) and
// hands out values of a shared counter in blocks kept per P, so goroutines on
// different cores stop writing one cache line for every value. The pinning
// is the runtime's own, the one sync.Pool uses.
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

// Blocks hands out distinct values of a shared counter, each P taking a
// block of them at a time. Values come out increasing within a block, but
// not across Ps: a value can be smaller than one returned earlier from
// another P's block. It is safe for concurrent use.
type Blocks struct {
	size   uint64
	shards []block
}

// block is the values [next, end) held by one P. It is only touched by a
// goroutine pinned to that P, so it needs no locking; the race detector
// cannot see that exclusion, so race builds access it atomically (see
// block_race.go).
type block struct {
	next, end uint64
	_         [128 - 16]byte // keep blocks on separate cache lines
}

// NewBlocks returns Blocks that reserve size values at a time (at least 1)
// for each of the current GOMAXPROCS Ps.
func NewBlocks(size uint64) *Blocks {
	return &Blocks{size: max(size, 1), shards: make([]block, runtime.GOMAXPROCS(0))}
}

// Size returns the number of values a P reserves at a time.
func (b *Blocks) Size() uint64 { return b.size }

// Take returns a value of counter that no call has returned before: the next
// value of the calling P's block, or the first of a new block reserved by
// adding Size to counter. On a P created after NewBlocks (GOMAXPROCS grew),
// it takes single values from counter. Every value of counter that Take
// reserves is used by this Blocks only.
func (b *Blocks) Take(counter *atomic.Uint64) uint64 {
	p := procPin()
	if p >= len(b.shards) {
		procUnpin()
		return counter.Add(1) - 1
	}
	s := &b.shards[p]
	next, end := s.load()
	if next == end {
		next = counter.Add(b.size) - b.size
		end = next + b.size
	}
	s.store(next+1, end)
	procUnpin()
	return next
}

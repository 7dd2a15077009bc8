package generator

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"weak"
)

// sequence is the state of a node's IDs, last tick<<seqBits | last
// sequence, with the counts Stats derives issued IDs from. Generators of
// one node, layout and the system clock share one (see sharedSequence).
type sequence struct {
	_    [64]byte // keep the hot word off the cache lines of other data
	last atomic.Int64
	_    [56]byte

	start     atomic.Int64 // the state before its first ID, for Stats
	skipped   atomic.Int64 // state values passed over: the rest of a tick, a dropped block, a move's raise
	discarded atomic.Int64 // state values taken but not issued: refused by the fence, below a move's floor
}

func newSequence() *sequence { return &sequence{} }

// raise moves the state up to at least v, counting the values passed over
// as skipped.
func (s *sequence) raise(v int64) {
	for {
		old := s.last.Load()
		if old >= v {
			return
		}
		if s.last.CompareAndSwap(old, v) {
			if !s.start.CompareAndSwap(old, v) { // IDs were issued: the raise skips values
				s.skipped.Add(v - old)
			}
			return
		}
	}
}

// sequenceKey names the IDs a sequence issues: the layout's fields that
// decide an ID's bits, and the node.
type sequenceKey struct {
	timeBits, nodeBits, seqBits uint8
	seqAboveNode                bool
	unit                        time.Duration
	epoch                       int64 // Unix nanoseconds
	node                        int64
}

// sequences holds the shared sequences weakly: a sequence no generator
// holds is collected, and its entry removed, so the registry costs nothing
// once its generators are gone, and nothing at all in a process that makes
// one generator per node.
var sequences struct {
	mu sync.Mutex
	m  map[sequenceKey]weak.Pointer[sequence]
}

// sharedSequence returns the sequence of k, making it if no live
// generator holds one.
func sharedSequence(k sequenceKey) *sequence {
	sequences.mu.Lock()
	defer sequences.mu.Unlock()
	if s := sequences.m[k].Value(); s != nil {
		return s
	}
	if sequences.m == nil {
		sequences.m = map[sequenceKey]weak.Pointer[sequence]{}
	}
	s := newSequence()
	sequences.m[k] = weak.Make(s)
	runtime.AddCleanup(s, forgetSequence, k)
	return s
}

// forgetSequence removes k's entry once its sequence is collected, unless
// a new sequence has taken its place.
func forgetSequence(k sequenceKey) {
	sequences.mu.Lock()
	defer sequences.mu.Unlock()
	if p, ok := sequences.m[k]; ok && p.Value() == nil {
		delete(sequences.m, k)
	}
}

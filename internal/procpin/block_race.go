//go:build race

package procpin

import "sync/atomic"

// Under the race detector the pinned accesses go through atomics, which the
// detector understands; the logic is the same as in block_norace.go.

func (s *block) load() (next, end uint64) {
	return atomic.LoadUint64(&s.next), atomic.LoadUint64(&s.end)
}

func (s *block) store(next, end uint64) {
	atomic.StoreUint64(&s.next, next)
	atomic.StoreUint64(&s.end, end)
}

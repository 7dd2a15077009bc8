//go:build race

package objectidgen

import "sync/atomic"

// Under the race detector the pinned accesses go through atomics, which the
// detector understands; the logic is the same as in shard_norace.go.

func (s *shard) load() (next, end uint64, second int64) {
	return atomic.LoadUint64(&s.next), atomic.LoadUint64(&s.end), atomic.LoadInt64(&s.second)
}

func (s *shard) setNext(next uint64) { atomic.StoreUint64(&s.next, next) }

func (s *shard) store(next, end uint64, second int64) {
	atomic.StoreUint64(&s.next, next)
	atomic.StoreUint64(&s.end, end)
	atomic.StoreInt64(&s.second, second)
}

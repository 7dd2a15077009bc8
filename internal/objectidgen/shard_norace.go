//go:build !race

package objectidgen

func (s *shard) load() (next, end uint64, second int64) { return s.next, s.end, s.second }

func (s *shard) setNext(next uint64) { s.next = next }

func (s *shard) store(next, end uint64, second int64) { s.next, s.end, s.second = next, end, second }

//go:build !race

package objectidgen

func (s *shard) load() (next, end uint64) { return s.next, s.end }

func (s *shard) store(next, end uint64) { s.next, s.end = next, end }

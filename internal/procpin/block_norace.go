//go:build !race

package procpin

func (s *block) load() (next, end uint64) { return s.next, s.end }

func (s *block) store(next, end uint64) { s.next, s.end = next, end }

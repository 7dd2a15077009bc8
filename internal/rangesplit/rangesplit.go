// Package rangesplit is a deterministic model of how a distributed SQL
// database splits its key range into ranges as rows are inserted, for
// tests that ask which keys spread writes over the ranges.
//
// It copies the two split rules TiKV and CockroachDB share:
//
//   - By size: a range holding more than MaxKeys keys splits at its median
//     key, as a TiKV region splits when it outgrows region-split-size and a
//     CockroachDB range when it outgrows range_max_bytes (both split near
//     the middle of the data).
//   - By load: after every Window writes, a range that took more than
//     MaxLoad of them splits at the median of the keys it was written in
//     that window, as TiKV's load-based split (split.qps-threshold, a key
//     that divides the sampled requests in half) and CockroachDB's
//     load-based splitting (kv.range_split.load_qps_threshold, a split key
//     chosen from sampled requests so that both sides take equal load) do.
//     A range whose window keys are all equal cannot split.
//
// It leaves out what does not decide where writes go: byte sizes (a key
// counts one), time (a window counts writes), replicas, merges and
// leaseholder moves.
package rangesplit

import (
	"cmp"
	"slices"
)

// Key is a key of up to 16 bytes read as a big-endian number: Hi holds its
// first 8 bytes, Lo the rest, so keys compare as their bytes do.
type Key struct{ Hi, Lo uint64 }

// Compare orders keys as their bytes.
func (k Key) Compare(o Key) int {
	if c := cmp.Compare(k.Hi, o.Hi); c != 0 {
		return c
	}
	return cmp.Compare(k.Lo, o.Lo)
}

// Model is a key space split into ranges. Its zero value is not usable:
// make one with New.
type Model struct {
	maxKeys, window, maxLoad int
	ranges                   []*span   // sorted by start; the first starts at the smallest key
	writes                   int       // writes in the current window
	busiest                  []float64 // each ended window's busiest share
}

// span is one range: the keys from start (inclusive) to the next range's
// start.
type span struct {
	start  Key
	keys   []Key // unsorted
	window []Key // keys written in the current load window
}

// New returns a model with one range over the whole key space: ranges
// split when they hold more than maxKeys keys or take more than maxLoad of
// a window of writes.
func New(maxKeys, window, maxLoad int) *Model {
	return &Model{maxKeys: maxKeys, window: window, maxLoad: maxLoad, ranges: []*span{{}}}
}

// Insert writes k into the range that holds it, then applies the split
// rules.
func (m *Model) Insert(k Key) {
	i := m.Find(k)
	r := m.ranges[i]
	r.keys = append(r.keys, k)
	r.window = append(r.window, k)
	if len(r.keys) > m.maxKeys {
		m.split(i, r.keys)
	}
	if m.writes++; m.writes == m.window {
		m.splitHot()
	}
}

// Find returns the index of the range that holds k.
func (m *Model) Find(k Key) int {
	i, _ := slices.BinarySearchFunc(m.ranges, k, func(r *span, k Key) int {
		if r.start.Compare(k) <= 0 {
			return -1
		}
		return 1
	})
	return i - 1
}

// Len returns the number of ranges.
func (m *Model) Len() int { return len(m.ranges) }

// splitHot ends a load window: it records the largest share of the
// window's writes one range took, then each range that took more than
// maxLoad of them splits at their median key.
func (m *Model) splitHot() {
	m.writes = 0
	most := 0
	for _, r := range m.ranges {
		most = max(most, len(r.window))
	}
	m.busiest = append(m.busiest, float64(most)/float64(m.window))
	for i := 0; i < len(m.ranges); i++ {
		r := m.ranges[i]
		w := r.window
		r.window = nil
		if len(w) > m.maxLoad && m.split(i, w) {
			m.ranges[i].window, m.ranges[i+1].window = nil, nil
			i++ // the new right half took about half the load
		}
	}
}

// split splits range i at the median of sample, when that key is above the
// range's start; it reports whether it did.
func (m *Model) split(i int, sample []Key) bool {
	s := slices.Clone(sample)
	slices.SortFunc(s, Key.Compare)
	at := s[len(s)/2]
	r := m.ranges[i]
	if at.Compare(r.start) <= 0 {
		return false
	}
	var left, right []Key
	for _, k := range r.keys {
		if k.Compare(at) < 0 {
			left = append(left, k)
		} else {
			right = append(right, k)
		}
	}
	r.keys = left
	m.ranges = slices.Insert(m.ranges, i+1, &span{start: at, keys: right})
	return true
}

// Busiest returns, for each of the last n ended windows, the largest share
// of the window's writes that one range took (a range that split by size
// within the window counts the window's writes of both halves).
func (m *Model) Busiest(n int) []float64 {
	return m.busiest[max(0, len(m.busiest)-n):]
}

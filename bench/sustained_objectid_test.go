package bench

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/xid"
	v1primitive "go.mongodb.org/mongo-driver/bson/primitive"
	v2bson "go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/generator"
)

// objectIDWindow is how long each sustained ObjectID run generates: whole
// seconds, so that a generator that waits after 2^24 IDs in a second, or
// one whose 3-byte counter wraps within a second, shows it.
const objectIDWindow = 2 * time.Second

// oid is an ObjectID of any of the measured libraries.
type oid = [12]byte

// objectIDGenerators are the ObjectID generators measured for sustained
// throughput.
func objectIDGenerators(tb testing.TB) []struct {
	name string
	make func() func() oid // a fresh generator per run where the library allows
} {
	idkit := func(opts ...generator.ObjectIDOption) func() oid {
		g, err := generator.NewObjectID(opts...)
		if err != nil {
			tb.Fatal(err)
		}
		return func() oid { return oid(g.Next()) }
	}
	return []struct {
		name string
		make func() func() oid
	}{
		{"idkit", func() func() oid { return idkit() }},
		{"idkit-percpu", func() func() oid { return idkit(generator.WithPerCPUBlocks(perCPUBlock)) }},
		{"mongo-v1", func() func() oid { return func() oid { return oid(v1primitive.NewObjectID()) } }},
		{"mongo-v2", func() func() oid { return func() oid { return oid(v2bson.NewObjectID()) } }},
		{"xid", func() func() oid { return func() oid { return oid(xid.New()) } }},
	}
}

// sustainedObjectID runs each ObjectID generator flat out on every core for
// objectIDWindow and reports IDs per second, the number of duplicates (IDs
// equal to one made earlier in the run) and CPU time per ID. Duplicates fail
// an idkit row only: the peers' are what the rows show.
func sustainedObjectID(b *testing.B) {
	workers := runtime.GOMAXPROCS(0)
	for _, g := range objectIDGenerators(b) {
		b.Run(fmt.Sprintf("ObjectID/%s/goroutines=%d", g.name, workers), func(b *testing.B) {
			for b.Loop() {
				next := g.make()
				stores := prepareStores(next, workers)
				runtime.GC()
				start := make(chan struct{})
				var wg sync.WaitGroup
				for _, s := range stores {
					wg.Go(func() {
						<-start
						s.collect(next, time.Now().Add(objectIDWindow))
					})
				}
				cpu0, t0 := cpuTime(), time.Now()
				close(start)
				wg.Wait()
				elapsed, cpu := time.Since(t0), cpuTime()-cpu0
				n, dups := countDuplicates(stores)
				b.ReportMetric(float64(n)/elapsed.Seconds(), "ids/s")
				b.ReportMetric(float64(dups), "dups")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/id")
				if dups > 0 && strings.HasPrefix(g.name, "idkit") {
					b.Errorf("%d duplicates among %d IDs", dups, n)
				}
			}
		})
		// Free this row's IDs before the next row.
		runtime.GC()
		debug.FreeOSMemory()
	}
}

// chunkIDs is how many IDs one chunk of a store holds (12 MiB).
const chunkIDs = 1 << 20

// idStore holds the IDs one goroutine makes in a window, in chunks so that
// no ID is copied while the window runs.
type idStore struct {
	full  [][]oid // filled chunks, in order
	spare [][]oid // chunks prepared in advance, not yet used
}

// prepareStores returns one store per worker with enough chunks for a
// window at the rate next reaches in a short probe on all workers, each
// page already touched, so that the window measures neither page faults nor
// zeroing.
func prepareStores(next func() oid, workers int) []*idStore {
	const probe = 100 * time.Millisecond
	counts := make([]int, workers)
	var wg sync.WaitGroup
	deadline := time.Now().Add(probe)
	for w := range workers {
		wg.Go(func() {
			var ring [256]oid
			for time.Now().Before(deadline) {
				for i := range ring {
					ring[i] = next()
				}
				counts[w] += len(ring)
			}
		})
	}
	wg.Wait()
	stores := make([]*idStore, workers)
	for w := range stores {
		// Room for the probe's rate, 1.25 times over, plus a chunk.
		need := int(float64(counts[w])*1.25*float64(objectIDWindow)/float64(probe))/chunkIDs + 1
		s := &idStore{}
		for range need {
			c := make([]oid, chunkIDs)
			for i := 0; i < len(c); i += 4096 / 12 {
				c[i][0] = 1 // fault the page in now
			}
			s.spare = append(s.spare, c)
		}
		stores[w] = s
	}
	return stores
}

// take returns an empty chunk, prepared in advance if one is left.
func (s *idStore) take() []oid {
	if n := len(s.spare); n > 0 {
		c := s.spare[n-1]
		s.spare = s.spare[:n-1]
		return c[:0]
	}
	return make([]oid, 0, chunkIDs)
}

// collect calls next until the deadline, keeping every ID.
func (s *idStore) collect(next func() oid, deadline time.Time) {
	cur := s.take()
	for {
		if len(cur) == cap(cur) {
			s.full = append(s.full, cur)
			cur = s.take()
		}
		for range 256 { // chunkIDs is a multiple of 256
			cur = append(cur, next())
		}
		if time.Now().After(deadline) {
			break
		}
	}
	s.full = append(s.full, cur)
	s.spare = nil
}

// countDuplicates returns how many IDs the stores hold and how many of them
// equal another one held before them. Each goroutine's IDs mostly come in
// rising runs (every library's counter increments), so it merges those runs
// rather than sorting all the IDs.
func countDuplicates(stores []*idStore) (n, dups int) {
	var h runHeap
	for _, s := range stores {
		for _, c := range s.full {
			n += len(c)
			for len(c) > 0 {
				i := 1
				for i < len(c) && !less(c[i], c[i-1]) {
					i++
				}
				h = append(h, c[:i])
				c = c[i:]
			}
		}
	}
	h.init()
	var prev oid
	for i := 0; len(h) > 0; i++ {
		id := h[0][0]
		if i > 0 && id == prev {
			dups++
		}
		prev = id
		if h[0] = h[0][1:]; len(h[0]) == 0 {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		h.down(0)
	}
	return n, dups
}

func less(a, b oid) bool {
	ah, bh := binary.BigEndian.Uint64(a[:8]), binary.BigEndian.Uint64(b[:8])
	return ah < bh || ah == bh && binary.BigEndian.Uint32(a[8:]) < binary.BigEndian.Uint32(b[8:])
}

// runHeap is a min-heap of non-empty rising runs, by their first ID.
type runHeap [][]oid

func (h runHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h runHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && less(h[r][0], h[l][0]) {
			m = r
		}
		if !less(h[m][0], h[i][0]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func TestCountDuplicates(t *testing.T) {
	id := func(b ...byte) oid { var o oid; copy(o[12-len(b):], b); return o }
	a := &idStore{full: [][]oid{{id(1), id(3), id(5), id(2), id(4)}, {id(3), id(3)}}}
	b := &idStore{full: [][]oid{{id(5), id(6), id(1, 0)}, {}}}
	if n, dups := countDuplicates([]*idStore{a, b}); n != 10 || dups != 3 {
		t.Fatalf("countDuplicates = %d, %d; want 10, 3", n, dups)
	}
}

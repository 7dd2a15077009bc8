package procpin_test

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/idkit-go/idkit/internal/procpin"
)

func TestRangesPerP(t *testing.T) {
	r := procpin.NewRanges()
	if r.Len() != runtime.GOMAXPROCS(0) {
		t.Fatalf("Len %d, GOMAXPROCS %d", r.Len(), runtime.GOMAXPROCS(0))
	}
	p := procpin.Pin()
	ok := r.Set(p, 5, 9)
	next, end := r.Get(p)
	none := r.Set(r.Len(), 1, 2)
	n2, e2 := r.Get(r.Len())
	procpin.Unpin()
	if !ok || next != 5 || end != 9 {
		t.Fatalf("Set(%d, 5, 9) = %v, Get = %d, %d", p, ok, next, end)
	}
	if none || n2 != 0 || e2 != 0 {
		t.Fatalf("P without a range: Set = %v, Get = %d, %d", none, n2, e2)
	}
}

// TestBlocksDistinct takes values on many goroutines, also on Ps created
// after the Blocks (GOMAXPROCS grew): all distinct, rising within each
// goroutine's run on one P's block, and few counter values left unused.
func TestBlocksDistinct(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	b := procpin.NewBlocks(16)
	runtime.GOMAXPROCS(2 * old)
	defer runtime.GOMAXPROCS(old)
	var counter atomic.Uint64
	workers, per := 8*old, 10_000
	got := make([][]uint64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			mine := make([]uint64, per)
			for i := range mine {
				mine[i] = b.Take(&counter)
			}
			got[w] = mine
		})
	}
	wg.Wait()
	all := slices.Concat(got...)
	slices.Sort(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("value %d taken twice", all[i])
		}
	}
	if used, reserved := uint64(len(all)), counter.Load(); reserved > used+16*uint64(old) {
		t.Fatalf("%d values reserved for %d taken", reserved, used)
	}
}

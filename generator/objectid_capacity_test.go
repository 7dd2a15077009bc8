//go:build !race

package generator_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
)

// TestObjectIDConcurrentSecondCapacity fills one second from several
// goroutines at once: every counter value of the second is distinct, and
// the values left unused in Ps' blocks (or lost in races to open the
// second) stay within the documented 64 per P. It makes 16M IDs, which the
// race detector would make too slow, so it runs without it.
func TestObjectIDConcurrentSecondCapacity(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 2^24 IDs")
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := generator.NewFakeClock(start)
	g, err := generator.NewObjectID(generator.WithClock(clock), generator.WithCounterStart(1<<24-1000))
	if err != nil {
		t.Fatal(err)
	}
	const workers = 4
	counters := make([][]uint32, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			mine := make([]uint32, 0, 1<<23)
			for {
				id := g.Next()
				if !id.Timestamp().Equal(start) {
					break
				}
				mine = append(mine, id.Counter())
			}
			counters[w] = mine
		})
	}
	wg.Wait()
	used := make([]bool, 1<<24)
	n := 0
	for _, list := range counters {
		for _, c := range list {
			if used[c] {
				t.Fatalf("counter %d repeated within one second", c)
			}
			used[c] = true
			n++
		}
	}
	if min := 1<<24 - 64*runtime.GOMAXPROCS(0); n < min {
		t.Fatalf("%d IDs in one second, want at least %d", n, min)
	}
}

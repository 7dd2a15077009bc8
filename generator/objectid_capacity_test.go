//go:build !race

package generator_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
)

// TestObjectIDConcurrentSecondCapacity fills one second of a generator with
// a fixed process value from several goroutines at once: every counter value
// of the second is used once, in strict order all 2^24 of them, with per-CPU
// blocks all but at most 64 per P. It makes 32M IDs, which the race detector
// would make too slow, so it runs without it.
func TestObjectIDConcurrentSecondCapacity(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 2^24 IDs")
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := generatortest.NewFakeClock(start)
	for _, block := range []int{1, 64} {
		clock.Set(start)
		g, err := generator.NewObjectID(generator.WithClock(clock), generator.WithWorkerID(1), generator.WithCounterStart(0), generator.WithPerCPUBlocks(block))
		if err != nil {
			t.Fatal(err)
		}
		fillSecond(t, g, start, block)
	}
}

func fillSecond(t *testing.T, g *generator.ObjectID, start time.Time, block int) {
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
	if min := 1<<24 - (block-1)*runtime.GOMAXPROCS(0); n < min {
		t.Fatalf("blocks of %d: %d IDs in one second, want at least %d", block, n, min)
	}
}

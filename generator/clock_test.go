package generator_test

import (
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
)

func TestSystemClockSleepNeverWakesEarly(t *testing.T) {
	c := generator.SystemClock()
	for _, d := range []time.Duration{0, 50 * time.Microsecond, 300 * time.Microsecond, 900 * time.Microsecond, 2500 * time.Microsecond} {
		start := time.Now()
		c.Sleep(d)
		if got := time.Since(start); got < d {
			t.Errorf("Sleep(%v) returned after %v", d, got)
		}
	}
}

// The coarse clock behind system-clock generators may trail the exact clock;
// it must never turn into a false ErrClockMovedBackwards, even with no
// tolerance, nor into a decreasing ID.
func TestSystemClockGeneratorWithZeroToleranceNeverFails(t *testing.T) {
	g, err := generator.NewSnowflake(3, generator.WithBackwardTolerance(0))
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 4, 100_000
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var prev int64
			for range each {
				id, err := g.Next()
				if err != nil {
					t.Errorf("Next: %v", err)
					return
				}
				if int64(id) <= prev {
					t.Errorf("ID %d after %d", id, prev)
					return
				}
				prev = int64(id)
			}
		}()
	}
	wg.Wait()
	p, err := generator.Twitter().Decompose(g.MustNext())
	if err != nil {
		t.Fatal(err)
	}
	if lag := time.Since(p.Time); lag < -time.Millisecond || lag > time.Second {
		t.Errorf("ID time %v is %v from the wall clock", p.Time, lag)
	}
}

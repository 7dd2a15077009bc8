package generator_test

import (
	"bytes"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/types"
)

func TestObjectIDConcurrentUnique(t *testing.T) {
	total := 10_000_000
	if testing.Short() {
		total = 500_000
	}
	g, err := generator.NewObjectID()
	if err != nil {
		t.Fatal(err)
	}
	workers := 4 * runtime.GOMAXPROCS(0)
	per := total / workers
	all := make([]types.ObjectID, workers*per)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := all[w*per : (w+1)*per]
			for i := range mine {
				mine[i] = g.Next()
				if i > 0 && mine[i].Timestamp().Before(mine[i-1].Timestamp()) {
					t.Errorf("timestamp went backwards in one goroutine: %s then %s", mine[i-1], mine[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	slices.SortFunc(all, func(a, b types.ObjectID) int { return bytes.Compare(a[:], b[:]) })
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("duplicate ObjectID %s among %d", all[i], len(all))
		}
	}
	pu := g.ProcessUnique()
	for _, id := range all[:100] {
		if id.ProcessUnique() != pu {
			t.Fatalf("ID %s has process value %x, generator %x", id, id.ProcessUnique(), pu)
		}
	}
}

func TestObjectIDCounterExhaustionWaitsForNextSecond(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := generatortest.NewFakeClock(start)
	const first = 1<<24 - 1000 // the counter reaches 2^24 - 1 after 1000 IDs
	g, err := generator.NewObjectID(generator.WithClock(clock), generator.WithWorkerID(7), generator.WithCounterStart(first))
	if err != nil {
		t.Fatal(err)
	}
	// With a fixed process value the counter may not wrap within the second:
	// 1000 IDs in rising order, then Next sleeps and the counter restarts at 0.
	var prev types.ObjectID
	for i := range 1000 {
		id := g.Next()
		if !id.Timestamp().Equal(start) || id.Counter() != first+uint32(i) || (i > 0 && id.Compare(prev) <= 0) {
			t.Fatalf("ID %d: %s (second %v, counter %d)", i, id, id.Timestamp(), id.Counter())
		}
		prev = id
	}
	id := g.Next()
	if !id.Timestamp().Equal(start.Add(time.Second)) || id.Counter() != 0 || id.ProcessUnique() != g.ProcessUnique() {
		t.Fatalf("ID after exhaustion: %s (second %v, counter %d)", id, id.Timestamp(), id.Counter())
	}
	if clock.Now().Before(start.Add(time.Second)) {
		t.Fatalf("generator did not sleep until the next second; clock at %v", clock.Now())
	}
}

func TestObjectIDCounterCarriesIntoRandomProcessValue(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := generatortest.NewFakeClock(start)
	const first = 1<<24 - 3
	g, err := generator.NewObjectID(generator.WithClock(clock), generator.WithCounterStart(first))
	if err != nil {
		t.Fatal(err)
	}
	// With a random process value Next never waits: the counter carries into
	// the process value, so IDs keep rising within the second.
	pu := g.ProcessUnique()
	ids := make([]types.ObjectID, 6)
	for i := range ids {
		ids[i] = g.Next()
		if !ids[i].Timestamp().Equal(start) || (i > 0 && ids[i].Compare(ids[i-1]) <= 0) {
			t.Fatalf("ID %d: %s (second %v)", i, ids[i], ids[i].Timestamp())
		}
	}
	if ids[2].ProcessUnique() != pu || ids[2].Counter() != 1<<24-1 || ids[3].Counter() != 0 || ids[3].ProcessUnique() == pu {
		t.Fatalf("IDs at the carry: %s, %s", ids[2], ids[3])
	}
	if !clock.Now().Equal(start) {
		t.Fatalf("generator waited; clock at %v", clock.Now())
	}
	clock.Set(start.Add(time.Second))
	if id := g.Next(); id.ProcessUnique() != pu || id.Counter() != 0 {
		t.Fatalf("first ID of the next second: %s", id)
	}
}

// By default one generator's IDs rise in the order Next returns them within
// a second, across goroutines: each goroutine sees its IDs increasing even
// as it moves between Ps.
func TestObjectIDDefaultOrder(t *testing.T) {
	clock := generatortest.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	// Counter start 0: the 3-byte counter does not wrap within this test.
	g, err := generator.NewObjectID(generator.WithClock(clock), generator.WithCounterStart(0))
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 20_000
	lists := make([][]types.ObjectID, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			ids := make([]types.ObjectID, each)
			for i := range ids {
				ids[i] = g.Next()
				if i%64 == 0 {
					runtime.Gosched() // move between Ps
				}
			}
			lists[w] = ids
		})
	}
	wg.Wait()
	seen := make(map[types.ObjectID]bool, workers*each)
	for w, ids := range lists {
		for i, id := range ids {
			if seen[id] {
				t.Fatalf("duplicate %s", id)
			}
			seen[id] = true
			if i > 0 && id.Compare(ids[i-1]) <= 0 {
				t.Fatalf("goroutine %d: ID %d (%s) not above the one before (%s)", w, i, id, ids[i-1])
			}
		}
	}
}

func TestObjectIDClockBackwardsKeepsLastSecond(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := generatortest.NewFakeClock(start)
	g, _ := generator.NewObjectID(generator.WithClock(clock), generator.WithCounterStart(0))
	a := g.Next()
	clock.Set(start.Add(-time.Hour))
	b := g.Next()
	if !b.Timestamp().Equal(start) || b.Compare(a) <= 0 {
		t.Fatalf("after clock set back: %s (%v) after %s", b, b.Timestamp(), a)
	}
	clock.Set(start.Add(2 * time.Second))
	c := g.Next()
	if !c.Timestamp().Equal(start.Add(2*time.Second)) || c.Compare(b) <= 0 {
		t.Fatalf("after clock recovered: %s (%v)", c, c.Timestamp())
	}
}

func TestObjectIDOptions(t *testing.T) {
	g, err := generator.NewObjectID(generator.WithWorkerID(0x0102030405))
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Next().ProcessUnique(); got != [5]byte{1, 2, 3, 4, 5} {
		t.Errorf("WithWorkerID: process value %x", got)
	}
	for _, bad := range []int64{-1, 1 << 40} {
		if _, err := generator.NewObjectID(generator.WithWorkerID(bad)); !errors.Is(err, generator.ErrNodeOutOfRange) {
			t.Errorf("WithWorkerID(%d) err = %v", bad, err)
		}
	}
	g, _ = generator.NewObjectID(generator.WithProcessUnique([5]byte{9, 9, 9, 9, 9}))
	if got := g.Next().ProcessUnique(); got != [5]byte{9, 9, 9, 9, 9} {
		t.Errorf("WithProcessUnique: %x", got)
	}
	a, _ := generator.NewObjectID()
	b, _ := generator.NewObjectID()
	if a.ProcessUnique() == b.ProcessUnique() {
		t.Error("two random generators share a process value")
	}
	if generator.DefaultObjectID().ProcessUnique() != types.NewObjectID().ProcessUnique() {
		t.Error("DefaultObjectID is not the generator behind types.NewObjectID")
	}
}

func TestObjectIDTimestampTracksSystemClock(t *testing.T) {
	g, _ := generator.NewObjectID()
	before := time.Now().Truncate(time.Second)
	id := g.Next()
	after := time.Now()
	if ts := id.Timestamp(); ts.Before(before.Add(-time.Second)) || ts.After(after) {
		t.Fatalf("timestamp %v outside [%v, %v]", ts, before, after)
	}
}

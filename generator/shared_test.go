package generator_test

import (
	"runtime"
	"sync"
	"testing"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// TestOneNodeTwice makes two generators for node 7 in one process, as two
// parts of a service that were each given the node do, and takes 200,000
// IDs from each at once: none may repeat.
func TestOneNodeTwice(t *testing.T) {
	a, err := generator.NewSnowflake(7)
	if err != nil {
		t.Fatal(err)
	}
	b, err := generator.NewSnowflake(7)
	if err != nil {
		t.Fatal(err)
	}
	const each = 200_000
	ids := make([][]types.Snowflake, 2)
	var wg sync.WaitGroup
	for i, g := range []*generator.Snowflake{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := make([]types.Snowflake, 0, each)
			for range each {
				id, err := g.Next()
				if err != nil {
					t.Error(err)
					return
				}
				out = append(out, id)
			}
			ids[i] = out
		}()
	}
	wg.Wait()
	seen := make(map[types.Snowflake]struct{}, 2*each)
	dups := 0
	for _, list := range ids {
		for _, id := range list {
			if _, ok := seen[id]; ok {
				dups++
			}
			seen[id] = struct{}{}
		}
	}
	if dups > 0 || len(seen) != 2*each {
		t.Fatalf("%d duplicates among %d IDs of two generators for node 7", dups, 2*each)
	}
	if got := a.Stats().Issued; got != 2*each {
		t.Errorf("Stats().Issued = %d, want %d (both generators' IDs)", got, 2*each)
	}
	runtime.KeepAlive(b)
}

// TestOneNodeTwiceOtherNodes checks that the sharing is per node and
// layout: another node, or another layout, has a sequence of its own.
func TestOneNodeTwiceOtherNodes(t *testing.T) {
	a, _ := generator.NewSnowflake(8)
	b, _ := generator.NewSnowflake(9)
	c, err := generator.NewSnowflake(8, generator.WithLayout(generator.Sonyflake()))
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		a.MustNext()
	}
	if b.Stats().Issued != 0 || c.Stats().Issued != 0 {
		t.Errorf("another node or layout shares node 8's sequence: %d, %d issued", b.Stats().Issued, c.Stats().Issued)
	}
}

package publicid_test

import (
	"sync"
	"testing"

	"github.com/idkit-go/idkit/types"
)

// TestConcurrentUse shares one codec of each kind between goroutines (run
// it with -race).
func TestConcurrentUse(t *testing.T) {
	sc := mustNew[types.Snowflake](t, "user", key1+" "+key2)
	uc := mustNew[types.UUID](t, "user", key1)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				sf := types.Snowflake(g<<32 | i + 1)
				s, _ := sc.Encode(sf)
				if got, err := sc.Decode(s); err != nil || got != sf {
					t.Errorf("Snowflake %d: %v, %v", sf, got, err)
					return
				}
				u := types.UUID{0: byte(g), 14: 1, 15: byte(i)}
				s, _ = uc.Encode(u)
				if got, err := uc.Decode(s); err != nil || got != u {
					t.Errorf("UUID %v: %v, %v", u, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

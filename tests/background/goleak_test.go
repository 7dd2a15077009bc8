package background_test

import (
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// TestNoGoroutineAfterABurst makes 2M ObjectIDs and 2M UUIDs on 8
// goroutines, plus Snowflakes, and checks with goleak's default options,
// right after the burst, that no goroutine is left.
func TestNoGoroutineAfterABurst(t *testing.T) {
	g, err := generator.NewSnowflake(1)
	if err != nil {
		t.Fatal(err)
	}
	const workers, per = 8, 250_000
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range per {
				types.NewObjectID()
				types.NewUUIDv7()
			}
			for range per / 10 {
				if _, err := g.Next(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	goleak.VerifyNone(t)
}

package generator_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
)

// A generator on the system clock starts no goroutine, at a low rate or in
// a tight loop: the shared clock publishes from a runtime timer, whose
// callback runs for microseconds at each boundary (hence the short wait).
func TestNoBackgroundGoroutineAtLowRates(t *testing.T) {
	g, err := generator.NewSnowflake(1)
	require.NoError(t, err)
	o, err := generator.NewObjectID()
	require.NoError(t, err)
	time.Sleep(20 * time.Millisecond) // goroutines of earlier tests end
	before := runtime.NumGoroutine()
	for range 50 { // 500 IDs a second of each kind
		g.MustNext()
		o.Next()
		assert.LessOrEqual(t, runtime.NumGoroutine(), before)
		time.Sleep(2 * time.Millisecond)
	}
	for range 100_000 {
		g.MustNext()
	}
	deadline := time.Now().Add(100 * time.Millisecond)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before, "a goroutine left after a tight loop")
}

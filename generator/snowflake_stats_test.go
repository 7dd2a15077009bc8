package generator_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/internal/rebind"
)

var errClosed = errors.New("closed")

// TestSnowflakeStatsExact: once quiescent, Issued is the number of IDs
// returned, through new ticks, waits, fence refusals and a move.
func TestSnowflakeStatsExact(t *testing.T) {
	for _, name := range []string{"system", "system-percpu", "fake", "fake-borrow"} {
		t.Run(name, func(t *testing.T) {
			var closed atomic.Bool
			opts := []generator.Option{generator.WithFence(func() error {
				if closed.Load() {
					return errClosed
				}
				return nil
			})}
			switch name {
			case "system-percpu":
				opts = append(opts, generator.WithPerCPUBlocks(16))
			case "fake":
				opts = append(opts, generator.WithClock(generator.NewFakeClock(time.Now())))
			case "fake-borrow":
				opts = append(opts, generator.WithClock(generator.NewFakeClock(time.Now())), generator.WithBorrowAhead(3*time.Millisecond))
			}
			g, err := generator.NewSnowflake(1, opts...)
			require.NoError(t, err)
			issued, refused := 0, 0
			next := func(n int) {
				for range n {
					if _, err := g.Next(); err == nil {
						issued++
					} else {
						require.ErrorIs(t, err, generator.ErrFenced)
						refused++
					}
				}
			}
			next(10000)
			closed.Store(true)
			next(3)
			require.NoError(t, rebind.Snowflake(g, 2, time.Now().Add(2*time.Millisecond)))
			closed.Store(false)
			next(10000)
			st := g.Stats()
			require.Equal(t, uint64(issued), st.Issued)
			require.Equal(t, uint64(refused), st.Fenced)
			require.Equal(t, int64(2), st.Node)
		})
	}
}

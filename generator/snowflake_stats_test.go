package generator_test

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
)

var errClosed = errors.New("closed")

// TestSnowflakeStatsExact: once quiescent, Issued is the number of IDs
// returned, through new ticks, waits, fence refusals and a move.
func TestSnowflakeStatsExact(t *testing.T) {
	for _, name := range []string{"system", "system-percpu", "fake", "fake-borrow"} {
		t.Run(name, func(t *testing.T) {
			var closed atomic.Bool
			opts := []generator.SnowflakeOption{generator.WithFence(func() error {
				if closed.Load() {
					return errClosed
				}
				return nil
			})}
			var clock generator.Clock = generator.SystemClock()
			switch name {
			case "system-percpu":
				opts = append(opts, generator.WithPerCPUBlocks(16))
			case "fake":
				clock = generatortest.NewFakeClock(time.Now())
			case "fake-borrow":
				clock = generatortest.NewFakeClock(time.Now())
				opts = append(opts, generator.WithBorrowAhead(3*time.Millisecond))
			}
			opts = append(opts, generator.WithClock(clock))
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
			require.NoError(t, g.Rebind(2, clock.Now().Add(2*time.Millisecond)))
			closed.Store(false)
			next(10000)
			st := g.Stats()
			if name == "system-percpu" {
				// Values a P holds in its block count as issued.
				require.GreaterOrEqual(t, st.Issued, uint64(issued))
				require.LessOrEqual(t, st.Issued, uint64(issued+16*runtime.GOMAXPROCS(0)))
			} else {
				require.Equal(t, uint64(issued), st.Issued)
			}
			require.Equal(t, uint64(refused), st.Fenced)
			require.Equal(t, int64(2), st.Node)
		})
	}
}

// TestSnowflakeMoveUnique moves a fenced generator between two nodes while
// goroutines issue, each move as package node makes it (fence closed, move
// with a floor at least every ID time issued so far, fence opened): no ID
// repeats, with or without per-CPU blocks.
func TestSnowflakeMoveUnique(t *testing.T) {
	for _, name := range []string{"strict", "percpu"} {
		t.Run(name, func(t *testing.T) {
			var closed atomic.Bool
			opts := []generator.SnowflakeOption{generator.WithFence(func() error {
				if closed.Load() {
					return errClosed
				}
				return nil
			})}
			if name == "percpu" {
				opts = append(opts, generator.WithPerCPUBlocks(64))
			}
			g, err := generator.NewSnowflake(0, opts...)
			require.NoError(t, err)
			const workers = 4
			results := make(chan []int64, workers)
			stop := make(chan struct{})
			for range workers {
				go func() {
					var ids []int64
					for {
						select {
						case <-stop:
							results <- ids
							return
						default:
						}
						if id, err := g.Next(); err == nil {
							ids = append(ids, int64(id))
						} else {
							require.ErrorIs(t, err, generator.ErrFenced)
						}
					}
				}()
			}
			for i := range 50 {
				time.Sleep(time.Millisecond)
				refused := g.Stats().Fenced
				closed.Store(true)
				// Let the workers meet the closed fence, some of them
				// holding values taken before it closed.
				for g.Stats().Fenced == refused {
					runtime.Gosched()
				}
				// Without borrowing no ID has a time after the clock's
				// reading, so the clock now is a valid mark for any node.
				require.NoError(t, g.Rebind(int64(1-i%2), time.Now()))
				closed.Store(false)
			}
			close(stop)
			seen := map[int64]bool{}
			total := 0
			for range workers {
				for _, id := range <-results {
					require.False(t, seen[id], "id %d repeated", id)
					seen[id] = true
					total++
				}
			}
			require.Greater(t, total, 1000)
			st := g.Stats()
			if name == "strict" {
				require.Equal(t, uint64(total), st.Issued)
			} else {
				require.GreaterOrEqual(t, st.Issued, uint64(total), "values held in blocks count as issued")
			}
			require.Positive(t, st.Fenced)
		})
	}
}

// TestSnowflakeMoveFloorAboveIssued: values taken before a move and not
// above the new node's floor are not issued there.
func TestSnowflakeMoveFloorAboveIssued(t *testing.T) {
	clock := generatortest.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	g, err := generator.NewSnowflake(0, generator.WithClock(clock), generator.WithFence(func() error { return nil }),
		generator.WithPerCPUBlocks(256), generator.WithBorrowAhead(time.Second))
	require.NoError(t, err)
	first := g.MustNext() // the P keeps the rest of its block
	floor := clock.Now().Add(5 * time.Millisecond)
	require.NoError(t, g.Rebind(1, floor))
	require.Equal(t, int64(1), g.Node())
	l := generator.Twitter()
	for range 1000 {
		id := g.MustNext()
		require.Greater(t, id, first)
		p, err := l.Decompose(id)
		require.NoError(t, err)
		require.Equal(t, int64(1), p.Node)
		require.True(t, p.Time.After(floor), "id at %v not after floor %v", p.Time, floor)
	}
	_, err = generator.NewSnowflake(0)
	require.NoError(t, err)
	plain, _ := generator.NewSnowflake(0)
	require.Error(t, plain.Rebind(1, floor), "a generator without a fence is never moved")
	require.Error(t, g.Rebind(1<<10, floor), "node out of range")
}

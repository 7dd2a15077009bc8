package segment_test

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator/segment"
	"github.com/idkit-go/idkit/internal/testdb"
)

// database opens one server's database for a subtest; a missing server
// skips (or under CI fails) that subtest only.
type database struct {
	name string
	open func(testing.TB) *sql.DB
}

func databases() []database {
	return []database{
		{"postgres", testdb.Postgres},
		{"mariadb", testdb.MySQL},
		{"sqlite", testdb.SQLite},
	}
}

func table(t *testing.T, db *sql.DB) string {
	name := testdb.Name("seg")
	t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + name) })
	return name
}

// collect takes n IDs from each allocator concurrently (workers goroutines
// per allocator) and returns them all.
func collect(t *testing.T, allocs []*segment.Allocator, workers, n int) []int64 {
	var mu sync.Mutex
	var all []int64
	var wg sync.WaitGroup
	for _, a := range allocs {
		for range workers {
			wg.Go(func() {
				ids := make([]int64, 0, n)
				for range n {
					id, err := a.Next(context.Background())
					if err != nil {
						t.Error(err)
						return
					}
					ids = append(ids, id)
				}
				mu.Lock()
				all = append(all, ids...)
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	return all
}

func requireUnique(t *testing.T, ids []int64) {
	t.Helper()
	seen := make(map[int64]struct{}, len(ids))
	for _, id := range ids {
		_, dup := seen[id]
		require.False(t, dup, "duplicate id %d", id)
		require.Positive(t, id)
		seen[id] = struct{}{}
	}
}

func TestConcurrentTakersAndRestart(t *testing.T) {
	t.Parallel()
	for _, d := range databases() {
		t.Run(d.name, func(t *testing.T) {
			db := d.open(t)
			ctx := context.Background()
			opts := segment.Options{Table: table(t, db), Step: 10, MaxStep: 200}
			var allocs []*segment.Allocator
			for range 4 { // four processes' allocators on one tag
				a, err := segment.New(ctx, db, "orders", opts)
				require.NoError(t, err)
				allocs = append(allocs, a)
			}
			ids := collect(t, allocs, 4, 500)
			require.Len(t, ids, 4*4*500)
			// A restart (a crash loses the buffered IDs) continues above.
			for _, a := range allocs {
				require.NoError(t, a.Close())
				_, err := a.Next(ctx)
				require.ErrorIs(t, err, segment.ErrClosed)
			}
			b, err := segment.New(ctx, db, "orders", opts)
			require.NoError(t, err)
			defer b.Close()
			more := collect(t, []*segment.Allocator{b}, 2, 300)
			ids = append(ids, more...)
			requireUnique(t, ids)
			// Another tag counts on its own.
			c, err := segment.New(ctx, db, "users", opts)
			require.NoError(t, err)
			defer c.Close()
			first, err := c.Next(ctx)
			require.NoError(t, err)
			require.Equal(t, int64(1), first)
		})
	}
}

func TestDatabaseUnavailableMidRun(t *testing.T) {
	t.Parallel()
	for _, d := range databases() {
		t.Run(d.name, func(t *testing.T) {
			db := d.open(t)
			ctx := context.Background()
			name := table(t, db)
			a, err := segment.New(ctx, db, "t", segment.Options{Table: name, Step: 100, MaxStep: 100, RetryAfter: 5 * time.Millisecond})
			require.NoError(t, err)
			defer a.Close()
			var ids []int64
			take := func() error {
				id, err := a.Next(ctx)
				if err == nil {
					ids = append(ids, id)
				}
				return err
			}
			for range 20 { // past the prefetch point: the second segment arrives
				require.NoError(t, take())
			}
			require.Eventually(t, func() bool { return a.Stats().Buffered == 180 }, 5*time.Second, time.Millisecond)

			// The table goes away: the allocator serves both buffers, then fails.
			_, err = db.Exec("ALTER TABLE " + name + " RENAME TO " + name + "_x")
			require.NoError(t, err)
			served := 0
			for {
				if err := take(); err != nil {
					require.ErrorIs(t, err, segment.ErrUnavailable)
					break
				}
				served++
			}
			require.Equal(t, 180, served, "every buffered id is served before an error")
			require.Zero(t, a.Stats().Buffered)

			// The database comes back: the allocator recovers by itself.
			_, err = db.Exec("ALTER TABLE " + name + "_x RENAME TO " + name)
			require.NoError(t, err)
			for range 250 {
				require.NoError(t, take())
			}
			requireUnique(t, ids)
		})
	}
}

func TestStepAdaptsAndCountsStatements(t *testing.T) {
	t.Parallel()
	db := testdb.SQLite(t)
	a, err := segment.New(context.Background(), db, "fast", segment.Options{Step: 100, MaxStep: 6400})
	require.NoError(t, err)
	defer a.Close()
	collect(t, []*segment.Allocator{a}, 2, 50_000)
	st := a.Stats()
	require.Equal(t, int64(6400), st.Step, "a fast consumer grows the step to the bound")
	require.Less(t, st.Statements, int64(40), "100k ids from about 100k/6400 + 7 fetches")
	require.Equal(t, st.Segments, st.Statements)
}

func TestSmallStepUnderLoadWaitsNotFails(t *testing.T) {
	t.Parallel()
	for _, d := range databases() {
		t.Run(d.name, func(t *testing.T) {
			db := d.open(t)
			a, err := segment.New(context.Background(), db, "tiny", segment.Options{Table: table(t, db), Step: 1, MaxStep: 2})
			require.NoError(t, err)
			defer a.Close()
			ids := collect(t, []*segment.Allocator{a}, 16, 50)
			requireUnique(t, ids)
			require.Len(t, ids, 800)
		})
	}
}

func TestOptionsInvalid(t *testing.T) {
	t.Parallel()
	db := testdb.SQLite(t)
	cases := map[string]segment.Options{
		"table":    {Table: "x y"},
		"step":     {Step: -1},
		"max step": {Step: 10, MaxStep: 5},
		"prefetch": {PrefetchAt: 1.5},
		"start":    {Start: -3},
		"shrink":   {Grow: time.Hour, Shrink: time.Minute},
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := segment.New(context.Background(), db, "t", o)
			require.ErrorIs(t, err, segment.ErrInvalidConfig)
		})
	}
	_, err := segment.New(context.Background(), db, "", segment.Options{})
	require.ErrorIs(t, err, segment.ErrInvalidConfig)
}

package segment_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator/segment"
	"github.com/idkit-go/idkit/internal/testdb"
)

// TestCloseWhileTaking closes allocators while many goroutines take IDs
// through prefetches and slow-path fetches (run with -race): no fetch may
// start or run after Close returns, and every Next after it fails with
// ErrClosed.
func TestCloseWhileTaking(t *testing.T) {
	t.Parallel()
	db := testdb.SQLite(t)
	tbl := table(t, db)
	ctx := context.Background()
	for round := range 20 {
		a, err := segment.New(ctx, db, "close", segment.Options{Table: tbl, Step: 2, MaxStep: 2})
		require.NoError(t, err)
		var wg sync.WaitGroup
		var stop atomic.Bool
		for range 4 {
			wg.Go(func() {
				for !stop.Load() {
					if _, err := a.Next(ctx); err != nil {
						if !errors.Is(err, segment.ErrClosed) {
							t.Errorf("round %d: %v", round, err)
						}
						return
					}
				}
			})
		}
		time.Sleep(time.Duration(round%4) * time.Millisecond)
		require.NoError(t, a.Close())
		var maxID int64
		require.NoError(t, db.QueryRow("SELECT max_id FROM "+tbl+" WHERE biz_tag = 'close'").Scan(&maxID))
		stmts := a.Stats().Statements
		stop.Store(true)
		wg.Wait()
		time.Sleep(5 * time.Millisecond)
		var after int64
		require.NoError(t, db.QueryRow("SELECT max_id FROM "+tbl+" WHERE biz_tag = 'close'").Scan(&after))
		require.Equal(t, maxID, after, "round %d: a fetch ran after Close returned", round)
		require.Equal(t, stmts, a.Stats().Statements, "round %d: a fetch started after Close returned", round)
		_, err = a.Next(ctx)
		require.ErrorIs(t, err, segment.ErrClosed)
	}
}

// TestCloseReleasesWaiters: a caller waiting for a fetch (the row is locked
// by another transaction) when Close runs gets ErrClosed, promptly.
func TestCloseReleasesWaiters(t *testing.T) {
	t.Parallel()
	for _, d := range []struct {
		name string
		open func(testing.TB) *sql.DB
		lock string
	}{
		{"postgres", testdb.Postgres, "SELECT max_id FROM %s WHERE biz_tag = 'wait' FOR UPDATE"},
		{"mariadb", testdb.MySQL, "SELECT max_id FROM %s WHERE biz_tag = 'wait' FOR UPDATE"},
	} {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			db := d.open(t)
			tbl := table(t, db)
			ctx := context.Background()
			a, err := segment.New(ctx, db, "wait", segment.Options{Table: tbl, Step: 1, MaxStep: 1, PrefetchAt: 0.99})
			require.NoError(t, err)
			// Lock the row, then use up the buffered IDs.
			tx, err := db.BeginTx(ctx, nil)
			require.NoError(t, err)
			defer tx.Rollback()
			var v int64
			require.NoError(t, tx.QueryRowContext(ctx, sprintf(d.lock, tbl)).Scan(&v))
			errs := make(chan error, 1)
			go func() {
				for {
					if _, err := a.Next(ctx); err != nil {
						errs <- err
						return
					}
				}
			}()
			time.Sleep(200 * time.Millisecond) // the caller is now waiting on the locked row
			select {
			case err := <-errs:
				t.Fatalf("Next returned before Close: %v", err)
			default:
			}
			start := time.Now()
			require.NoError(t, a.Close())
			select {
			case err := <-errs:
				require.ErrorIs(t, err, segment.ErrClosed)
			case <-time.After(2 * time.Second):
				t.Fatal("the waiting caller did not return after Close")
			}
			require.Less(t, time.Since(start), 2*time.Second)
		})
	}
}

func sprintf(format, tbl string) string { return fmt.Sprintf(format, tbl) }

// TestNextDoesNotAllocate checks Next's doc: no allocation while the
// current segment lasts.
func TestNextDoesNotAllocate(t *testing.T) {
	db := testdb.SQLite(t)
	a, err := segment.New(context.Background(), db, "allocs", segment.Options{Table: table(t, db), Step: 100000, PrefetchAt: 0.99})
	require.NoError(t, err)
	defer a.Close()
	ctx := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := a.Next(ctx); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, allocs)
}

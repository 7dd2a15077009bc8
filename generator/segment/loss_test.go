package segment_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator/segment"
)

// The tests of this file run allocators flat out through a store fault
// and count every ID every allocator handed out: an ID handed out twice
// is a repeat. Each repeated IDs on the code before the allocator kept
// the table's record row (a deleted row re-seeded from Start, a row set
// back went unnoticed).

// runner hands out IDs flat out from allocators until stopped, keeping
// every ID each returned.
type runner struct {
	stop   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	ids    []int64
	errs   []error
	counts []int // IDs handed out per allocator, read with mu
}

func newRunner() *runner { return &runner{stop: make(chan struct{})} }

// add starts handing out IDs from a; a failed Next is retried after a
// pause, its error kept.
func (r *runner) add(a *segment.Allocator) {
	r.mu.Lock()
	i := len(r.counts)
	r.counts = append(r.counts, 0)
	r.mu.Unlock()
	r.wg.Go(func() {
		var ids []int64
		flush := func() {
			r.mu.Lock()
			r.ids = append(r.ids, ids...)
			r.counts[i] += len(ids)
			r.mu.Unlock()
			ids = ids[:0]
		}
		defer flush()
		for {
			select {
			case <-r.stop:
				return
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			id, err := a.Next(ctx)
			cancel()
			if err != nil {
				flush()
				r.mu.Lock()
				r.errs = append(r.errs, err)
				r.mu.Unlock()
				time.Sleep(5 * time.Millisecond)
				continue
			}
			if ids = append(ids, id); len(ids) == 1000 {
				flush()
			}
		}
	})
}

// total returns how many IDs the runner has collected so far.
func (r *runner) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.ids)
}

// errIs returns the last error an allocator returned that wraps target,
// or else the last error, or nil.
func (r *runner) errIs(target error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.errs) - 1; i >= 0; i-- {
		if errors.Is(r.errs[i], target) {
			return r.errs[i]
		}
	}
	if len(r.errs) == 0 {
		return nil
	}
	return r.errs[len(r.errs)-1]
}

// lastErr returns the last error an allocator returned, or nil.
func (r *runner) lastErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) == 0 {
		return nil
	}
	return r.errs[len(r.errs)-1]
}

// finish stops the allocators' loops and returns every ID handed out and
// how many were handed out more than once.
func (r *runner) finish() (all []int64, repeats int) {
	close(r.stop)
	r.wg.Wait()
	seen := make(map[int64]struct{}, len(r.ids))
	for _, id := range r.ids {
		if _, dup := seen[id]; dup {
			repeats++
		}
		seen[id] = struct{}{}
	}
	return r.ids, repeats
}

// waitIDs waits until the runner collected n IDs more than it had, or d.
func (r *runner) waitIDs(n int, d time.Duration) {
	want := r.total() + n
	for deadline := time.Now().Add(d); r.total() < want && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// TestDeletedRowNotReseeded: two allocators hand out IDs; the tag's row is
// deleted; a new allocator of the tag (a process starting) must not seed
// it again from Start and hand out the IDs the others did.
func TestDeletedRowNotReseeded(t *testing.T) {
	t.Parallel()
	for _, d := range databases() {
		t.Run(d.name, func(t *testing.T) {
			db := d.open(t)
			ctx := context.Background()
			opts := segment.Options{Table: table(t, db), Step: 100, MaxStep: 100}
			other, err := segment.New(ctx, db, "other", opts) // a second tag in the table
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			r := newRunner()
			for range 2 {
				a, err := segment.New(ctx, db, "orders", opts)
				if err != nil {
					t.Fatal(err)
				}
				defer a.Close()
				r.add(a)
			}
			r.waitIDs(20_000, 10*time.Second)
			if _, err := db.ExecContext(ctx, "DELETE FROM "+opts.Table+" WHERE biz_tag = 'orders'"); err != nil {
				t.Fatal(err)
			}
			c, newErr := segment.New(ctx, db, "orders", opts)
			if newErr == nil {
				defer c.Close()
				r.add(c)
				r.waitIDs(20_000, 5*time.Second)
			}
			ids, repeats := r.finish()
			t.Logf("%d ids, %d repeated; New after the delete: %v", len(ids), repeats, newErr)
			if repeats > 0 {
				t.Fatalf("%d of %d ids handed out twice after the row was deleted", repeats, len(ids))
			}
			checkDeleted(t, newErr)
		})
	}
}

// TestRowSetBack: allocators hand out IDs; the tag's row is set back to
// an earlier max_id (a restore of the table, or an operator's mistake)
// while they run.
func TestRowSetBack(t *testing.T) {
	t.Parallel()
	for _, d := range databases() {
		t.Run(d.name, func(t *testing.T) {
			db := d.open(t)
			ctx := context.Background()
			opts := segment.Options{Table: table(t, db), Step: 100, MaxStep: 100}
			r := newRunner()
			for range 2 {
				a, err := segment.New(ctx, db, "orders", opts)
				if err != nil {
					t.Fatal(err)
				}
				defer a.Close()
				r.add(a)
			}
			r.waitIDs(5_000, 10*time.Second)
			var snapshot int64
			if err := db.QueryRowContext(ctx, "SELECT max_id FROM "+opts.Table+" WHERE biz_tag = 'orders'").Scan(&snapshot); err != nil {
				t.Fatal(err)
			}
			r.waitIDs(20_000, 10*time.Second)
			if _, err := db.ExecContext(ctx, "UPDATE "+opts.Table+" SET max_id = "+strconv.FormatInt(snapshot, 10)+" WHERE biz_tag = 'orders'"); err != nil {
				t.Fatal(err)
			}
			r.waitIDs(20_000, 3*time.Second)
			ids, repeats := r.finish()
			t.Logf("%d ids, %d repeated; last error: %v", len(ids), repeats, r.lastErr())
			if repeats > 0 {
				t.Fatalf("%d of %d ids handed out twice after the row was set back", repeats, len(ids))
			}
			checkSetBack(t, r.errIs(segment.ErrLost))
			// The loss is recorded: a process starting is refused too, until
			// the operator raises max_id and clears it.
			if _, err := segment.New(ctx, db, "orders", opts); err == nil {
				t.Fatal("New after a recorded loss succeeded")
			} else {
				checkSetBack(t, fmt.Errorf("%w: %w", segment.ErrUnavailable, err))
			}
			if _, err := db.ExecContext(ctx, "UPDATE "+opts.Table+" SET max_id = max_id + 1000000 WHERE biz_tag = 'orders'"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, "UPDATE "+opts.Table+" SET ident = NULL WHERE biz_tag = ''"); err != nil {
				t.Fatal(err)
			}
			b, err := segment.New(ctx, db, "orders", opts)
			if err != nil {
				t.Fatalf("New after the operator cleared the loss: %v", err)
			}
			defer b.Close()
			id, err := b.Next(ctx)
			if err != nil || id <= ids[0] || slices.Contains(ids, id) {
				t.Fatalf("the first id after the loss was cleared: %d, %v", id, err)
			}
		})
	}
}

// openEach opens n handles of driver at dsn, closed when t ends: each
// allocator of a fault test has a connection pool of its own, as a
// process does.
func openEach(t *testing.T, n int, driver, dsn string) []*sql.DB {
	t.Helper()
	var dbs []*sql.DB
	for range n {
		db, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs = append(dbs, db)
	}
	return dbs
}

// TestLegacyTable: a table made before the record row (no ident column)
// gets it at New, counting the rows it holds: its tags go on above their
// max_id, and a row deleted afterwards is refused.
func TestLegacyTable(t *testing.T) {
	t.Parallel()
	for _, d := range databases() {
		t.Run(d.name, func(t *testing.T) {
			db := d.open(t)
			ctx := context.Background()
			name := table(t, db)
			if _, err := db.ExecContext(ctx, "CREATE TABLE "+name+" (biz_tag VARCHAR(128) NOT NULL PRIMARY KEY, max_id BIGINT NOT NULL, step INTEGER NOT NULL, updated TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, "INSERT INTO "+name+" (biz_tag, max_id, step) VALUES ('old', 5000, 10), ('gone', 7000, 10)"); err != nil {
				t.Fatal(err)
			}
			opts := segment.Options{Table: name, Step: 10}
			a, err := segment.New(ctx, db, "old", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if id, err := a.Next(ctx); err != nil || id != 5001 {
				t.Fatalf("first id of a legacy row: %d, %v; want 5001", id, err)
			}
			if _, err := db.ExecContext(ctx, "DELETE FROM "+name+" WHERE biz_tag = 'gone'"); err != nil {
				t.Fatal(err)
			}
			_, err = segment.New(ctx, db, "gone", opts)
			checkDeleted(t, err)
		})
	}
}

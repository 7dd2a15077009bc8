package sqllease_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/internal/testgorm"
	"github.com/idkit-go/idkit/types"
)

// setupWait bounds how long a claim may take in these tests: far beyond a
// claim's few round trips, so that a claim still running then is one that
// waits for something that never comes (a second connection from a pool
// of one).
const setupWait = 20 * time.Second

// Order is the GORM model of these tests, keyed by a leased Snowflake.
type Order struct {
	ID   types.Snowflake
	Item string
}

// lifecycle claims a lease through sqldb's store, makes IDs with it
// through GORM on gdb (the same pool; with a nil gdb, one ID), waits for two renewals and closes
// the lease: what every program using a lease does.
func lifecycle(t *testing.T, gdb *gorm.DB, sqldb *sql.DB, table string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), setupWait)
	defer cancel()
	start := time.Now()
	lease, err := node.NewLease(ctx, sqllease.NewStore(sqldb, sqllease.StoreOptions{Table: table}),
		node.LeaseOptions{TTL: 2 * time.Second}) // two renewals in 1.4 s; one may take 0.8 s
	if err != nil {
		t.Fatalf("claim after %v: %v", time.Since(start).Round(time.Millisecond), err)
	}
	g, err := node.NewSnowflake(ctx, lease)
	if err != nil {
		t.Fatal(err)
	}
	if gdb != nil {
		if err := gdb.Use(gormplugin.New(gormplugin.WithSnowflake(g))); err != nil {
			t.Fatal(err)
		}
		if err := gdb.AutoMigrate(&Order{}); err != nil {
			t.Fatal(err)
		}
		orders := []Order{{Item: "book"}, {Item: "pen"}}
		if err := gdb.Create(&orders).Error; err != nil {
			t.Fatal(err)
		}
	} else if _, err := g.Next(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(setupWait); lease.Stats().Renewals < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no two renewals in %v: %+v", setupWait, lease.Stats())
		}
	}
	if err := lease.Fence(); err != nil {
		t.Fatalf("fenced after two renewals: %v", err)
	}
	if err := lease.Close(ctx); err != nil {
		t.Fatalf("release: %v", err)
	}
	if gdb == nil {
		return
	}
	var n int64
	if err := gdb.Model(&Order{}).Count(&n).Error; err != nil || n != 2 {
		t.Fatalf("%d orders stored (%v), want 2", n, err)
	}
}

// openSQLite opens GORM on SQLite at dsn as the quickstart does, with at
// most conns connections (0: database/sql's default, no limit).
func openSQLite(t *testing.T, dsn string, conns int) (*gorm.DB, *sql.DB) {
	t.Helper()
	gdb, err := gorm.Open(sqlite.New(sqlite.Config{DriverName: "sqlite", DSN: dsn}), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	sqldb, err := gdb.DB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqldb.Close() })
	sqldb.SetMaxOpenConns(conns)
	return gdb, sqldb
}

// The quickstart's setup (an in-memory SQLite database, so one
// connection), and a file database with one connection: a claim, IDs
// through GORM on the same pool, renewals and the release all work.
func TestSQLiteOneConnection(t *testing.T) {
	for _, tc := range []struct{ name, dsn string }{
		{"quickstart memory", "file::memory:"},
		{"plain memory", ":memory:"},
		{"file", "file:" + t.TempDir() + "/one.db"},
		{"file busy timeout WAL", testdb.SQLiteDSN(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gdb, sqldb := openSQLite(t, tc.dsn, 1)
			lifecycle(t, gdb, sqldb, "")
		})
	}
}

// A private in-memory database with more than one connection is a
// database per connection: the store refuses it at once, naming the fixes,
// instead of answering "no such table" later. A shared-cache one works.
func TestSQLiteMemoryPool(t *testing.T) {
	for _, conns := range []int{0, 2} {
		for _, dsn := range []string{":memory:", "file::memory:"} {
			t.Run(fmt.Sprintf("%s/%d", dsn, conns), func(t *testing.T) {
				_, sqldb := openSQLite(t, dsn, conns)
				ctx, cancel := context.WithTimeout(context.Background(), setupWait)
				defer cancel()
				start := time.Now()
				lease, err := node.NewLease(ctx, sqllease.NewStore(sqldb, sqllease.StoreOptions{}), node.LeaseOptions{})
				if err == nil {
					lease.Close(ctx)
					t.Fatal("a lease on an in-memory database with several connections")
				}
				if !errors.Is(err, generator.ErrInvalidConfig) {
					t.Fatalf("after %v: %v, want generator.ErrInvalidConfig", time.Since(start).Round(time.Millisecond), err)
				}
				for _, want := range []string{"SetMaxOpenConns(1)", "cache=shared"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not name %s", err, want)
					}
				}
			})
		}
	}
	t.Run("shared cache", func(t *testing.T) {
		gdb, sqldb := openSQLite(t, "file:"+testdb.Name("mem")+"?mode=memory&cache=shared", 4)
		lifecycle(t, gdb, sqldb, "")
	})
}

// PostgreSQL and MariaDB with one connection: the smallest pool a user
// can set.
func TestServerOneConnection(t *testing.T) {
	for _, d := range testgorm.Dialects[1:] {
		t.Run(d.Name, func(t *testing.T) {
			gdb := testgorm.Open(t, d)
			sqldb, err := gdb.DB()
			if err != nil {
				t.Fatal(err)
			}
			sqldb.SetMaxOpenConns(1)
			table := testdb.Name("leases")
			t.Cleanup(func() { sqldb.Exec("DROP TABLE IF EXISTS " + table) })
			lifecycle(t, gdb, sqldb, table)
		})
	}
}

// writeLoad runs writers goroutines making GORM creates on gdb for
// duration and returns how many succeeded and how many failed fenced or
// otherwise (the first other error kept).
func writeLoad(t *testing.T, gdb *gorm.DB, writers int, duration time.Duration) (ok, fenced, other int64, first error) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	stop := time.Now().Add(duration)
	var nOK, nFenced, nOther atomic.Int64
	for w := range writers {
		wg.Go(func() {
			for i := 0; time.Now().Before(stop); i++ {
				err := gdb.Create(&Order{Item: fmt.Sprintf("w%d-%d", w, i)}).Error
				switch {
				case err == nil:
					nOK.Add(1)
				case errors.Is(err, generator.ErrFenced):
					nFenced.Add(1)
					mu.Lock()
					if first == nil || !errors.Is(first, generator.ErrFenced) {
						first = err
					}
					mu.Unlock()
				default:
					nOther.Add(1)
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return nOK.Load(), nFenced.Load(), nOther.Load(), first
}

// 50 writers making GORM creates through the pool the lease's store
// shares, with the pool sizes users set: no create fails fenced, and the
// rows are the successful creates, all on the lease's node. The load runs
// for 2 TTLs, so 6 renewals each of which must come through while 50
// writers queue for the pool and the database's write lock.
func TestLeaseUnderWriteLoad(t *testing.T) {
	const writers = 50
	// A renewal may take TTL - Margin - RenewEvery = 1.25 s: a queue of
	// the application's writes is the case, not a CPU shared by 50
	// writers and the other tests.
	const ttl = 3 * time.Second
	type pool struct {
		name   string
		d      testgorm.Dialect
		conns  int
		sqlite bool
	}
	var pools []pool
	for _, n := range []int{1, 0} {
		pools = append(pools, pool{fmt.Sprintf("sqlite/%d", n), testgorm.Dialects[0], n, true})
	}
	for _, d := range testgorm.Dialects[1:] {
		for _, n := range []int{10, 4} {
			pools = append(pools, pool{fmt.Sprintf("%s/%d", d.Name, n), d, n, false})
		}
	}
	for _, p := range pools {
		t.Run(p.name, func(t *testing.T) {
			if !p.sqlite {
				t.Parallel() // a server's pools beside each other; SQLite's in turn
			}
			gdb := testgorm.Open(t, p.d)
			sqldb, err := gdb.DB()
			if err != nil {
				t.Fatal(err)
			}
			sqldb.SetMaxOpenConns(p.conns)
			table := testdb.Name("leases")
			if !p.sqlite {
				t.Cleanup(func() { sqldb.Exec("DROP TABLE IF EXISTS " + table) })
			}
			ctx, cancel := context.WithTimeout(context.Background(), setupWait)
			defer cancel()
			store := &timedStore{Store: sqllease.NewStore(sqldb, sqllease.StoreOptions{Table: table})}
			lease, err := node.NewLease(ctx, store, node.LeaseOptions{TTL: ttl})
			if err != nil {
				t.Fatal(err)
			}
			defer lease.Close(context.Background())
			g, err := node.NewSnowflake(ctx, lease)
			if err != nil {
				t.Fatal(err)
			}
			if err := gdb.Use(gormplugin.New(gormplugin.WithSnowflake(g))); err != nil {
				t.Fatal(err)
			}
			if err := gdb.AutoMigrate(&Order{}); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			ok, fenced, other, first := writeLoad(t, gdb, writers, 2*ttl) // six renewals
			st := lease.Stats()
			t.Logf("%v: %d creates, %d fenced, %d other errors (%v); slowest renewal %v of the %v a renewal may take; lease %+v",
				time.Since(start).Round(time.Millisecond), ok, fenced, other, first, time.Duration(store.slowest.Load()), ttl-ttl/4-ttl/3, st)
			if fenced != 0 {
				t.Errorf("%d of %d creates fenced: %v", fenced, ok+fenced+other, first)
			}
			if other != 0 && !p.sqlite {
				t.Errorf("%d of %d creates failed: %v", other, ok+fenced+other, first)
			}
			var rows, distinct int64
			if err := gdb.Model(&Order{}).Count(&rows).Error; err != nil {
				t.Fatal(err)
			}
			if err := gdb.Model(&Order{}).Distinct("id").Count(&distinct).Error; err != nil {
				t.Fatal(err)
			}
			if rows != ok || distinct != rows {
				t.Errorf("%d rows, %d distinct keys, %d creates succeeded", rows, distinct, ok)
			}
			var ids []types.Snowflake
			if err := gdb.Model(&Order{}).Limit(100).Pluck("id", &ids).Error; err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				if p, err := generator.Twitter().Decompose(id); err != nil || p.Node != lease.Node() {
					t.Fatalf("key %v: node %d (%v), lease node %d", id, p.Node, err, lease.Node())
				}
			}
		})
	}
}

// timedStore keeps the longest a renewal took.
type timedStore struct {
	node.Store
	slowest atomic.Int64
}

func (s *timedStore) Renew(ctx context.Context, r node.Renewal) (node.Seen, error) {
	start := time.Now()
	defer func() {
		d := int64(time.Since(start))
		for old := s.slowest.Load(); d > old && !s.slowest.CompareAndSwap(old, d); old = s.slowest.Load() {
		}
	}()
	return s.Store.Renew(ctx, r)
}

package node_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/testdb"
)

// TestClaimHerd measures 1,000 claims at once through one process's
// 40-connection pool, TTL 10 s: on a new table or key, then again on it
// once all were released. Set IDKIT_HERD=1 to run it; with
// IDKIT_HERD_REPORT set it appends a markdown row per store to that file,
// labelled IDKIT_HERD_LABEL.
func TestClaimHerd(t *testing.T) {
	if os.Getenv("IDKIT_HERD") == "" {
		t.Skip("set IDKIT_HERD=1 to measure the claim herd")
	}
	sqlStore := func(open func(testing.TB) *sql.DB) func(t *testing.T) node.Store {
		return func(t *testing.T) node.Store {
			db := open(t)
			db.SetMaxOpenConns(40)
			table := testdb.Name("herd")
			t.Cleanup(func() { _, _ = db.Exec("DROP TABLE " + table) })
			s := sqllease.NewStore(db, sqllease.StoreOptions{Table: table})
			return s
		}
	}
	for _, c := range []struct {
		name  string
		store func(t *testing.T) node.Store
	}{
		{"postgres", sqlStore(testdb.Postgres)},
		{"mariadb", sqlStore(testdb.MySQL)},
		{"redis", func(t *testing.T) node.Store {
			cl := redis.NewClient(&redis.Options{Addr: testdb.RequireRedis(t), PoolSize: 40})
			key := testdb.Name("herd")
			t.Cleanup(func() { cl.Del(context.Background(), key, "{"+key+"}:held", "{"+key+"}:free"); cl.Close() })
			return redislease.NewStore(cl, redislease.StoreOptions{Key: key})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.store(t)
			row := "| " + os.Getenv("IDKIT_HERD_LABEL") + " | " + c.name
			for _, wave := range []string{"new", "existing"} {
				lat := make([]time.Duration, 1000)
				leases := make([]*node.Lease, 1000)
				var wg sync.WaitGroup
				t0 := time.Now()
				for i := range lat {
					wg.Go(func() {
						l, err := node.NewLease(context.Background(), s, node.LeaseOptions{})
						if err != nil {
							t.Error(err)
							return
						}
						lat[i], leases[i] = time.Since(t0), l
					})
				}
				wg.Wait()
				slices.Sort(lat)
				t.Logf("%s, %s: p50 %v, p99 %v, all %v", c.name, wave, lat[500].Round(time.Millisecond), lat[990].Round(time.Millisecond), lat[999].Round(time.Millisecond))
				row += fmt.Sprintf(" | %v / %v / %v", lat[500].Round(time.Millisecond), lat[990].Round(time.Millisecond), lat[999].Round(time.Millisecond))
				var cw sync.WaitGroup
				for _, l := range leases {
					if l != nil {
						cw.Go(func() { _ = l.Close(context.Background()) })
					}
				}
				cw.Wait()
			}
			if path := os.Getenv("IDKIT_HERD_REPORT"); path != "" && !t.Failed() {
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if _, err := f.WriteString(row + " |\n"); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

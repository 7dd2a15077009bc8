package node_test

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/internal/testdb"
)

// TestSQLiteConcurrentFirstClaims: 32 handles on one new SQLite file,
// opened without busy_timeout (the driver's default: fail at once), create
// the table and claim at the same moment. Every claim succeeds, each on
// its own node, as the table shows.
func TestSQLiteConcurrentFirstClaims(t *testing.T) {
	t.Parallel()
	dsn := "file:" + t.TempDir() + "/leases.db"
	const n = 32
	leases := make([]*node.Lease, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		db, err := sql.Open(testdb.SQLiteDriver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			leases[i], errs[i] = node.NewSQLLease(context.Background(), db, node.LeaseOptions{}, generator.WithLayout(layout(t, 6)))
		}()
	}
	close(start)
	wg.Wait()
	nodes := map[int64]bool{}
	for i, err := range errs {
		if err != nil {
			t.Errorf("lease %d: %v", i, err)
			continue
		}
		nodes[leases[i].Node()] = true
		defer leases[i].Close(context.Background())
	}
	if len(nodes) != n {
		t.Errorf("%d distinct nodes for %d leases", len(nodes), n)
	}
	db, err := sql.Open(testdb.SQLiteDriver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var held int
	if err := db.QueryRow("SELECT COUNT(*) FROM idkit_node_leases WHERE node >= 0 AND owner <> ''").Scan(&held); err != nil {
		t.Fatal(err)
	}
	if held != n {
		t.Errorf("the table shows %d nodes held, want %d", held, n)
	}
}

// TestHorizonFollowsTheTable: a process that raised the table's horizon
// raises it again when a claim finds it lower (a failover to a copy that
// lacked the raise), rather than trusting what it raised before.
func TestHorizonFollowsTheTable(t *testing.T) {
	t.Parallel()
	db := testdb.SQLite(t)
	ctx := context.Background()
	s, err := node.NewSQLStore(ctx, db, node.SQLStoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o := leaseConf{LeaseOptions: node.LeaseOptions{TTL: 10 * time.Second}}
	horizon := func() int64 {
		var h int64
		if err := db.QueryRow("SELECT version FROM idkit_node_leases WHERE node = -1").Scan(&h); err != nil {
			t.Fatal(err)
		}
		return h
	}
	l := lease(t, s, o)
	_ = l.Close(ctx)
	raised := horizon()
	if raised < int64(o.TTL) {
		t.Fatalf("horizon %v after a claim of TTL %v", time.Duration(raised), o.TTL)
	}
	// Another process, or a loss, leaves a lower horizon.
	if _, err := db.Exec("UPDATE idkit_node_leases SET version = 1 WHERE node = -1"); err != nil {
		t.Fatal(err)
	}
	l = lease(t, s, o)
	_ = l.Close(ctx)
	if h := horizon(); h != raised {
		t.Errorf("horizon %v after the next claim, want %v again", time.Duration(h), time.Duration(raised))
	}
}

package node_test

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/internal/testservers"
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
			leases[i], errs[i] = node.NewLease(context.Background(), sqllease.NewStore(db, sqllease.StoreOptions{}), node.LeaseOptions{}, generator.WithLayout(layout(t, 6)))
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
	s := sqllease.NewStore(db, sqllease.StoreOptions{})
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

// TestRestartEmptyAlone: the server restarts without its data under a
// lone holder, with no other process to create the lease table again. The
// holder's renewal must take the missing table for a store that forgot
// its lease (not for an outage, which would fence it for good), and its
// heal must create the table and claim again.
func TestRestartEmptyAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	for _, c := range []struct {
		name, driver, node string
		start              func(t *testing.T) (dsn string, restart func())
	}{
		{"postgres", "pgx", "$1", func(t *testing.T) (string, func()) {
			p := testservers.StartPostgres(t)
			return testservers.PostgresDSN(p.Addr()), func() { p.Restart(t, false) }
		}},
		{"mariadb", "mysql", "?", func(t *testing.T) (string, func()) {
			m := testservers.StartMariaDB(t, 1)
			return testservers.MySQLDSN(m.Addr()), func() { m.Restart(t, false) }
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn, restart := c.start(t)
			db := openDB(t, c.driver, dsn)
			s := sqllease.NewStore(db, sqllease.StoreOptions{})
			o := leaseConf{Layout: layout(t, 1), LeaseOptions: node.LeaseOptions{TTL: 2 * time.Second}}
			a := issue(t, lease(t, s, o))
			for a.count() == 0 {
				time.Sleep(time.Millisecond)
			}
			restart()
			deadline := time.Now().Add(4 * o.TTL)
			for a.lease.Stats().Reclaims == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("A did not heal after the restart: %+v", a.lease.Stats())
				}
				time.Sleep(10 * time.Millisecond)
			}
			n := a.count()
			for a.count() == n {
				if time.Now().After(deadline) {
					t.Fatalf("A issued nothing after its heal: %+v", a.lease.Stats())
				}
				time.Sleep(10 * time.Millisecond)
			}
			st := a.lease.Stats()
			a.halt()
			t.Logf("%s: A %+v", c.name, st)
			// The table is back, with its identity row, and the heal's claim.
			var owner string
			var ident int
			if err := db.QueryRow("SELECT owner, (SELECT COUNT(*) FROM idkit_node_leases WHERE node = -1) FROM idkit_node_leases WHERE node = "+c.node, st.Node).Scan(&owner, &ident); err != nil {
				t.Fatal(err)
			}
			if owner != "" && owner != st.Owner || ident != 1 {
				t.Errorf("node %d's row: owner %q (A: %q), %d identity rows", st.Node, owner, st.Owner, ident)
			}
		})
	}
}

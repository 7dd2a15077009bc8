package node_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testservers"
)

// The tests of this file put a replica's promotion beside a primary that
// still serves (split brain), with two holders issuing flat out, and count
// the IDs both returned. Each returned duplicates on the code before
// claims and renewals waited for the replicas.

// semiSyncPair is a MariaDB primary with a semi-synchronous replica fed
// through a link; the primary falls back to asynchronous replication after
// waiting a second for an acknowledgement.
func semiSyncPair(t *testing.T) pair {
	// The driver logs every connection the failover breaks.
	_ = mysql.SetLogger(log.New(io.Discard, "", 0))
	primary := testservers.StartMariaDB(t, 1)
	replica := testservers.StartMariaDB(t, 2)
	link := tcpproxy.Start(t, primary.Addr())
	replica.ReplicateSemiSyncFrom(t, primary, link.Addr())
	p := pair{
		name: "mariadb", primary: primary.Addr(), replica: replica.Addr(), driver: "mysql",
		dsn:      testservers.MySQLDSN,
		caughtUp: func(t *testing.T) { primary.CaughtUp(t, replica) },
		detach:   func(t *testing.T) { link.Cut() },
		promote:  func(t *testing.T) { replica.Promote(t) },
		kill:     func(t *testing.T) { primary.Kill(t) },
	}
	return p
}

// pgSyncPair is a PostgreSQL primary with a synchronous standby fed
// through a link.
func pgSyncPair(t *testing.T) pair {
	primary := testservers.StartPostgres(t)
	link := tcpproxy.Start(t, primary.Addr())
	replica := primary.Replica(t, link.Addr())
	primary.Psql(t, "ALTER SYSTEM SET synchronous_standby_names = '*'")
	primary.Psql(t, "SELECT pg_reload_conf()")
	deadline := time.Now().Add(30 * time.Second)
	for primary.Psql(t, "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") != "1" {
		if time.Now().After(deadline) {
			t.Fatal("the standby did not become synchronous")
		}
		time.Sleep(50 * time.Millisecond)
	}
	p := pair{
		name: "postgres-sync", primary: primary.Addr(), replica: replica.Addr(), driver: "pgx",
		dsn:      func(addr string) string { return "postgres://postgres@" + addr + "/postgres?sslmode=disable" },
		caughtUp: func(t *testing.T) { primary.CaughtUp(t, replica) },
		detach:   func(t *testing.T) { link.Cut() },
		promote:  func(t *testing.T) { replica.Promote(t) },
		kill:     func(t *testing.T) { primary.Kill(t) },
	}
	return p
}

// splitPairs are the replicated stores with their default options: a
// PostgreSQL primary with an asynchronous replica, a MariaDB primary with
// a semi-synchronous one.
func splitPairs() []struct {
	name string
	make func(t *testing.T) pair
} {
	return []struct {
		name string
		make func(t *testing.T) pair
	}{{"postgres", pgPair}, {"mariadb", semiSyncPair}}
}

// openDB opens the database at dsn, closed when t ends.
func openDB(t *testing.T, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// recordedReplicas reads the replicas the lease table records on the
// server at addr.
func recordedReplicas(t *testing.T, p pair, addr string) int64 {
	t.Helper()
	db := openDB(t, p.driver, p.dsn(addr))
	var n int64
	if err := db.QueryRowContext(context.Background(), "SELECT version FROM idkit_node_leases WHERE node = -2").Scan(&n); err != nil {
		t.Fatalf("the lease table's replicas: %v", err)
	}
	return n
}

// TestSplitBrain: A claims and issues on a primary whose replica has its
// claim; the replica leaves the primary and is promoted while the primary
// keeps serving A. B claims A's node on the new primary once A's row
// expired there. A must fence, as the replica it saw is gone.
func TestSplitBrain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	// A synchronous standby held before: kept.
	cases := append(splitPairs(), struct {
		name string
		make func(t *testing.T) pair
	}{"postgres-sync", pgSyncPair})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.make(t)
			o := leaseConf{Layout: layout(t, 1), LeaseOptions: node.LeaseOptions{TTL: 2 * time.Second}}
			a := issue(t, lease(t, p.store(t, p.primary), o))
			for a.count() == 0 {
				time.Sleep(time.Millisecond)
			}
			p.caughtUp(t)
			time.Sleep(o.TTL / 2)
			p.detach(t) // the partition: the replica leaves the primary
			p.promote(t)
			split := time.Now()
			time.Sleep(o.TTL + o.TTL/4) // A's row expires on the new primary
			// A new process on the old primary never saw the replica: the
			// table's record refuses it. (With a synchronous standby its
			// commit waits for the standby instead.)
			if c.name != "postgres-sync" {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				l, err := node.NewLease(ctx, p.store(t, p.primary), o.LeaseOptions, o.gen()...)
				cancel()
				if err == nil {
					_ = l.Close(context.Background())
					t.Error("a new lease on the old primary was not refused")
				} else if !strings.Contains(err.Error(), "records 1 replicas") || !strings.Contains(err.Error(), "node -2") {
					t.Errorf("the new lease's error names neither the recorded replicas nor row -2: %v", err)
				} else {
					t.Logf("a new lease on the old primary: %v", err)
				}
			}
			b := issue(t, lease(t, p.store(t, p.replica), o))
			if b.lease.Node() != a.lease.Node() {
				t.Fatalf("B claimed node %d, A held %d", b.lease.Node(), a.lease.Node())
			}
			time.Sleep(2 * o.TTL) // B waits out the horizon and issues
			aAfter := a.count()
			dups, n := duplicates(a.halt(), b.halt())
			t.Logf("%s: %d duplicates of %d IDs; A: %+v, issued %d by %v after the split",
				c.name, dups, n, a.lease.Stats(), aAfter, time.Since(split).Round(time.Millisecond))
			if dups != 0 {
				t.Errorf("%d duplicate IDs", dups)
			}
			if b.count() == 0 {
				t.Error("B issued no ID")
			}
			if got := recordedReplicas(t, p, p.primary); got != 1 {
				t.Errorf("the old primary's table records %d replicas, want 1", got)
			}
		})
	}
}

// TestHorizonLostWithClaim: the table and its horizon come from a holder
// of TTL 2 s; the replica falls behind; A, of TTL 10 s, claims and would
// raise the horizon; the failover loses A's claim, and B, of TTL 2 s,
// claims on the new primary. A's raise cannot be acknowledged: its claim
// is refused, or B waits A's horizon.
func TestHorizonLostWithClaim(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	for _, c := range splitPairs() {
		t.Run(c.name, func(t *testing.T) {
			p := c.make(t)
			ob := leaseConf{Layout: layout(t, 1), LeaseOptions: node.LeaseOptions{TTL: 2 * time.Second}}
			oa := ob
			oa.TTL = 10 * time.Second
			w := lease(t, p.store(t, p.primary), ob)
			_ = w.Close(context.Background())
			p.caughtUp(t)
			p.detach(t) // the replica falls behind
			pa := tcpproxy.Start(t, p.primary)
			var a *flat
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			l, err := node.NewLease(ctx, p.store(t, pa.Addr()), oa.LeaseOptions, oa.gen()...)
			cancel()
			if err != nil {
				t.Logf("A refused: %v", err)
				if !strings.Contains(err.Error(), "node -2") && !strings.Contains(err.Error(), "semi-synchronous") {
					t.Errorf("A's error names neither the recorded replicas nor semi-synchronous replication: %v", err)
				}
			} else {
				a = issue(t, l)
				for a.count() == 0 {
					time.Sleep(time.Millisecond)
				}
			}
			time.Sleep(ob.TTL / 2)
			p.promote(t)
			pa.Cut()
			p.kill(t)
			b := issue(t, lease(t, p.store(t, p.replica), ob))
			time.Sleep(2*ob.TTL + ob.TTL/2)
			bIDs := b.halt()
			dups, n := 0, len(bIDs)
			if a != nil {
				dups, n = duplicates(a.halt(), bIDs)
			}
			t.Logf("%s: %d duplicates of %d IDs (A claimed: %v)", c.name, dups, n, a != nil)
			if dups != 0 {
				t.Errorf("%d duplicate IDs", dups)
			}
			if len(bIDs) == 0 {
				t.Error("B issued no ID")
			}
		})
	}
}

// TestSplitBrainRefusedMariaDB: a MariaDB primary with an asynchronous
// replica cannot tell whether its writes reached the replica, so the store
// refuses it, naming the setting and the option; with AllowSplitBrain it
// opens.
func TestSplitBrainRefusedMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	primary := testservers.StartMariaDB(t, 1)
	replica := testservers.StartMariaDB(t, 2)
	replica.ReplicateFrom(t, primary.Addr())
	primary.CaughtUp(t, replica)
	db := openDB(t, "mysql", testservers.MySQLDSN(primary.Addr()))
	_, err := node.NewLease(context.Background(), sqllease.NewStore(db, sqllease.StoreOptions{}), node.LeaseOptions{})
	if !errors.Is(err, generator.ErrInvalidConfig) || !strings.Contains(err.Error(), "rpl_semi_sync_master_enabled") || !strings.Contains(err.Error(), "AllowSplitBrain") {
		t.Fatalf("a lease on a primary with an asynchronous replica: %v; want ErrInvalidConfig naming rpl_semi_sync_master_enabled and AllowSplitBrain", err)
	}
	s := sqllease.NewStore(db, sqllease.StoreOptions{AllowSplitBrain: true})
	l := lease(t, s, leaseConf{})
	_ = l.Close(context.Background())
}

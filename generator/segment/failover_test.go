package segment_test

import (
	"context"
	"io"
	"log"
	"strconv"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/idkit-go/idkit/generator/segment"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testservers"
)

// The store-fault tests: private PostgreSQL and MariaDB servers with a
// replica fed through a link that the test cuts (internal/testservers
// skips them unless IDKIT_FAULTS=1). Three allocators, each with a
// connection pool of its own through a proxy (the address a virtual IP or
// pooler gives), hand out IDs flat out, step 100; every ID each returned
// is counted. On the code before fetches waited for the replicas and
// checked the server's identity, each repeated IDs.

// replicated is a primary with one replica fed through link.
type replicated struct {
	driver   string
	dsn      func(addr string) string
	primary  string
	replica  string
	cut      func()             // the replica leaves the primary
	promote  func(t testing.TB) // the replica becomes a primary
	kill     func(t testing.TB) // the primary dies
	caughtUp func(t *testing.T)
}

// pgReplicated is a PostgreSQL primary with an asynchronous streaming
// replica; sync makes it a synchronous standby.
func pgReplicated(t *testing.T, sync bool) replicated {
	primary := testservers.StartPostgres(t)
	link := tcpproxy.Start(t, primary.Addr())
	replica := primary.Replica(t, link.Addr())
	if sync {
		primary.Psql(t, "ALTER SYSTEM SET synchronous_standby_names = '*'")
		primary.Psql(t, "SELECT pg_reload_conf()")
		for deadline := time.Now().Add(30 * time.Second); primary.Psql(t, "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") != "1"; {
			if time.Now().After(deadline) {
				t.Fatal("the standby did not become synchronous")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return replicated{
		driver: "pgx", dsn: func(addr string) string { return testservers.PostgresDSN(addr) },
		primary: primary.Addr(), replica: replica.Addr(),
		cut:      link.Cut,
		promote:  replica.Promote,
		kill:     primary.Kill,
		caughtUp: func(t *testing.T) { primary.CaughtUp(t, replica) },
	}
}

// mariaReplicated is a MariaDB primary with a replica: asynchronous, or
// semi-synchronous (AFTER_SYNC) falling back to asynchronous after
// timeoutMS without an acknowledgement.
func mariaReplicated(t *testing.T, semiSync bool, timeoutMS int) replicated {
	_ = mysql.SetLogger(log.New(io.Discard, "", 0)) // the cut breaks connections
	primary := testservers.StartMariaDB(t, 1)
	replica := testservers.StartMariaDB(t, 2)
	link := tcpproxy.Start(t, primary.Addr())
	if semiSync {
		replica.ReplicateSemiSyncFrom(t, primary, link.Addr())
		primary.SQL(t, "SET GLOBAL rpl_semi_sync_master_timeout = "+strconv.Itoa(timeoutMS))
	} else {
		replica.ReplicateFrom(t, link.Addr())
		for deadline := time.Now().Add(30 * time.Second); primary.SQL(t, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'") != "1"; {
			if time.Now().After(deadline) {
				t.Fatal("the replica did not connect")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return replicated{
		driver: "mysql", dsn: testservers.MySQLDSN,
		primary: primary.Addr(), replica: replica.Addr(),
		cut:      link.Cut,
		promote:  replica.Promote,
		kill:     primary.Kill,
		caughtUp: func(t *testing.T) { primary.CaughtUp(t, replica) },
	}
}

// faultOpts are the allocators' options in the fault tests: step 100,
// fixed, and a fetch bounded to a second.
func faultOpts() segment.Options {
	return segment.Options{Table: "seg_faults", Step: 100, MaxStep: 100, Timeout: time.Second, RetryAfter: 20 * time.Millisecond}
}

// allocators starts n allocators of tag "orders", each with a pool of its
// own through a proxy of its own to addr, returning the proxies.
func allocators(t *testing.T, r *runner, p replicated, n int, addr string, opts segment.Options) ([]*tcpproxy.Proxy, error) {
	t.Helper()
	var proxies []*tcpproxy.Proxy
	for range n {
		px := tcpproxy.Start(t, addr)
		db := openEach(t, 1, p.driver, p.dsn(px.Addr()))[0]
		a, err := segment.New(context.Background(), db, "orders", opts)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { a.Close() })
		r.add(a)
		proxies = append(proxies, px)
	}
	return proxies, nil
}

// TestFailover: the replica leaves the primary (the link cut), the primary
// keeps taking the allocators' fetches for a second and dies, and the
// replica, which missed them, is promoted; the allocators' proxies move to
// it. With the replicas' acknowledgement the fetches after the cut fail,
// and none hands out a segment the new primary does not have; a MariaDB
// primary with an asynchronous replica is refused at New.
func TestFailover(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(t *testing.T) replicated
	}{
		{"postgres", func(t *testing.T) replicated { return pgReplicated(t, false) }},
		{"postgres-sync", func(t *testing.T) replicated { return pgReplicated(t, true) }},
		{"mariadb-semisync", func(t *testing.T) replicated { return mariaReplicated(t, true, 1000) }},
		{"mariadb-async", func(t *testing.T) replicated { return mariaReplicated(t, false, 0) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.make(t)
			r := newRunner()
			proxies, err := allocators(t, r, p, 3, p.primary, faultOpts())
			if err != nil {
				r.finish()
				checkRefused(t, c.name, err)
				// Accepting the risk opens it.
				o := faultOpts()
				o.AllowSplitBrain = true
				if _, err := allocators(t, newRunner(), p, 1, p.primary, o); err != nil {
					t.Fatalf("New with AllowSplitBrain: %v", err)
				}
				return
			}
			r.waitIDs(30_000, 10*time.Second)
			p.caughtUp(t)
			p.cut()
			time.Sleep(2 * time.Second) // the primary takes fetches the replica misses (semi-sync: after its 1 s timeout)
			p.kill(t)
			p.promote(t)
			for _, px := range proxies {
				if err := px.MoveTo(p.replica); err != nil {
					t.Fatal(err)
				}
			}
			before := r.total()
			r.waitIDs(30_000, 10*time.Second)
			after := r.total() - before
			ids, repeats := r.finish()
			t.Logf("%d ids, %d after the failover, %d repeated; last error: %v", len(ids), after, repeats, r.lastErr())
			if repeats > 0 {
				t.Fatalf("%d of %d ids handed out twice across the failover", repeats, len(ids))
			}
			checkFailover(t, after, r.lastErr())
		})
	}
}

// TestSplitBrain: the replica leaves the primary and is promoted while the
// primary still serves: one allocator's proxy moves to the new primary,
// the others stay on the old one, and a new allocator (a process starting)
// opens on the old primary.
func TestSplitBrain(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(t *testing.T) replicated
	}{
		{"postgres", func(t *testing.T) replicated { return pgReplicated(t, false) }},
		{"mariadb-semisync", func(t *testing.T) replicated { return mariaReplicated(t, true, 1000) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.make(t)
			r := newRunner()
			proxies, err := allocators(t, r, p, 3, p.primary, faultOpts())
			if err != nil {
				t.Fatal(err)
			}
			r.waitIDs(30_000, 10*time.Second)
			p.caughtUp(t)
			p.cut()
			p.promote(t)
			if err := proxies[0].MoveTo(p.replica); err != nil {
				t.Fatal(err)
			}
			db := openEach(t, 1, p.driver, p.dsn(p.primary))[0]
			a, newErr := segment.New(context.Background(), db, "orders", faultOpts())
			if newErr == nil {
				t.Cleanup(func() { a.Close() })
				r.add(a)
			}
			r.waitIDs(60_000, 4*time.Second)
			ids, repeats := r.finish()
			t.Logf("%d ids, %d repeated; New on the old primary: %v; last error: %v", len(ids), repeats, newErr, r.lastErr())
			if repeats > 0 {
				t.Fatalf("%d of %d ids handed out twice in the split brain", repeats, len(ids))
			}
			checkSplit(t, newErr)
		})
	}
}

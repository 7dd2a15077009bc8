package node_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testservers"
	"github.com/idkit-go/idkit/types"
)

// The fault tests' holders issuing flat out, their count of IDs returned
// twice, a PostgreSQL primary with an asynchronous replica, and a lapsed
// renewal after a failover through a forwarding wrapper. The failover
// cases that were here (a lapsed renewal, mixed TTLs, a claim held across
// a failover, the first claim lost with the table) are cases of package
// nodetest's suite, which TestConformance runs on every store.

// flat is a holder issuing as fast as it can until halted.
type flat struct {
	lease *node.Lease
	mu    sync.Mutex
	ids   []types.Snowflake
	stop  chan struct{}
	done  chan struct{}
}

// issue makes the lease's generator and issues in the background.
func issue(t *testing.T, l *node.Lease) *flat {
	t.Helper()
	g, err := node.NewSnowflake(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	f := &flat{lease: l, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		buf := make([]types.Snowflake, 0, 64)
		for {
			select {
			case <-f.stop:
				return
			default:
			}
			for range 64 {
				if id, err := g.Next(); err == nil {
					buf = append(buf, id)
				}
			}
			f.mu.Lock()
			f.ids = append(f.ids, buf...)
			f.mu.Unlock()
			buf = buf[:0]
			time.Sleep(50 * time.Microsecond)
		}
	}()
	return f
}

func (f *flat) halt() []types.Snowflake {
	close(f.stop)
	<-f.done
	_ = f.lease.Close(context.Background())
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ids
}

func (f *flat) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.ids)
}

// duplicates counts the IDs that more than one set holds.
func duplicates(sets ...[]types.Snowflake) (dups, total int) {
	seen := map[types.Snowflake]bool{}
	for _, s := range sets {
		for _, id := range s {
			if seen[id] {
				dups++
			}
			seen[id] = true
		}
		total += len(s)
	}
	return dups, total
}

// pair is a primary with an asynchronous replica fed through link.
type pair struct {
	name             string
	primary, replica string
	dsn              func(addr string) string
	driver           string
	caughtUp         func(t *testing.T)
	detach, promote  func(t *testing.T)
	kill             func(t *testing.T)
	opts             sqllease.StoreOptions
	// wrap: the stores are reached through a forwarding wrapper
	// (failover_wrapper_test.go), which must keep every guarantee.
	wrap bool
}

func pgPair(t *testing.T) pair {
	primary := testservers.StartPostgres(t)
	link := tcpproxy.Start(t, primary.Addr())
	replica := primary.Replica(t, link.Addr())
	return pair{
		name: "postgres", primary: primary.Addr(), replica: replica.Addr(), driver: "pgx",
		dsn:      func(addr string) string { return "postgres://postgres@" + addr + "/postgres?sslmode=disable" },
		caughtUp: func(t *testing.T) { primary.CaughtUp(t, replica) },
		detach:   func(t *testing.T) { link.Cut() },
		promote:  func(t *testing.T) { replica.Promote(t) },
		kill:     func(t *testing.T) { primary.Kill(t) },
	}
}

// store opens a lease store through addr, closed when t ends.
func (p pair) store(t *testing.T, addr string) node.Store {
	t.Helper()
	s := failoverStoreWith(t, p.driver, p.dsn(addr), p.opts)
	if p.wrap {
		return tracing{s, &traced{}}
	}
	return s
}

func lease(t *testing.T, s node.Store, o leaseConf) *node.Lease {
	t.Helper()
	l, err := node.NewLease(context.Background(), s, o.LeaseOptions, o.gen()...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestLapsedRenewalAfterFailover (case 1): A is cut off past its TTL, C
// claims A's node on the primary, the failover to a replica that never saw
// C's claim brings back A's row. A's renewal on the new primary must not
// simply succeed: it cannot prove the store holds what A saw.
//
// It runs here through a forwarding wrapper: a wrapped store's renewal
// must prove continuity as the store's own does. The stores themselves
// run the case in the conformance suite (Failover/lapsed-renewal).
func TestLapsedRenewalAfterFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	// C claims on a primary its recorded replica left, which the store
	// refuses by default (docs/leases.md, "Split brain"): AllowSplitBrain
	// lets it, as the conformance suite's Failover/lapsed-renewal checks
	// the default options.
	wrapped := func(t *testing.T) pair {
		p := pgPair(t)
		p.wrap, p.opts = true, sqllease.StoreOptions{AllowSplitBrain: true}
		return p
	}
	for _, c := range []struct {
		name string
		make func(t *testing.T) pair
	}{{"postgres-wrapped", wrapped}} {
		t.Run(c.name, func(t *testing.T) {
			p := c.make(t)
			o := leaseConf{Layout: layout(t, 1), LeaseOptions: node.LeaseOptions{TTL: 2 * time.Second}}
			pa := tcpproxy.Start(t, p.primary)
			a := issue(t, lease(t, p.store(t, pa.Addr()), o))
			time.Sleep(o.TTL / 2)
			p.caughtUp(t)
			pa.Blackhole()
			time.Sleep(o.TTL + o.TTL/4) // A's row expires
			p.detach(t)
			p.promote(t)
			pc := tcpproxy.Start(t, p.primary)
			cl := lease(t, p.store(t, pc.Addr()), o)
			if cl.Node() != a.lease.Node() {
				t.Fatalf("C claimed node %d, A held %d", cl.Node(), a.lease.Node())
			}
			ch := issue(t, cl)
			for ch.count() == 0 {
				time.Sleep(time.Millisecond)
			}
			// The failover: C's primary dies (C issues on until its TTL -
			// Margin), A's path moves to the new primary.
			p.kill(t)
			if err := pa.MoveTo(p.replica); err != nil {
				t.Fatal(err)
			}
			time.Sleep(o.TTL + o.TTL/2)
			dups, n := duplicates(a.halt(), ch.halt())
			t.Logf("%s: %d duplicates of %d IDs", c.name, dups, n)
			if dups != 0 {
				t.Errorf("%d duplicate IDs", dups)
			}
		})
	}
}

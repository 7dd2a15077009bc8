package node_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testservers"
	"github.com/idkit-go/idkit/types"
)

// The tests of this file each reproduce one way a lease store forgets
// writes, with two holders issuing flat out, and count the IDs both
// returned. Each failed (returned duplicates) on the code before the
// store kept the horizon, counted the mark from the claim's arrival,
// wrote the identity row with the table and made renewals prove
// continuity.

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

func mariaPair(t *testing.T) pair {
	primary := testservers.StartMariaDB(t, 1)
	replica := testservers.StartMariaDB(t, 2)
	link := tcpproxy.Start(t, primary.Addr())
	replica.ReplicateFrom(t, link.Addr())
	return pair{
		name: "mariadb", primary: primary.Addr(), replica: replica.Addr(), driver: "mysql",
		dsn:      testservers.MySQLDSN,
		caughtUp: func(t *testing.T) { primary.CaughtUp(t, replica) },
		detach:   func(t *testing.T) { link.Cut() },
		promote:  func(t *testing.T) { replica.Promote(t) },
		kill:     func(t *testing.T) { primary.Kill(t) },
	}
}

// store opens a lease store through addr, closed when t ends.
func (p pair) store(t *testing.T, addr string) node.Store {
	t.Helper()
	s := failoverStore(t, p.driver, p.dsn(addr))
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

// pairs returns the replicated stores.
func pairs() []struct {
	name string
	make func(t *testing.T) pair
} {
	return []struct {
		name string
		make func(t *testing.T) pair
	}{{"postgres", pgPair}, {"mariadb", mariaPair}}
}

// TestLapsedRenewalAfterFailover (case 1): A is cut off past its TTL, C
// claims A's node on the primary, the failover to a replica that never saw
// C's claim brings back A's row. A's renewal on the new primary must not
// simply succeed: it cannot prove the store holds what A saw.
//
// It runs through a forwarding wrapper too: a wrapped store's renewal
// must prove continuity as the store's own does.
func TestLapsedRenewalAfterFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	wrapped := func(t *testing.T) pair { p := pgPair(t); p.wrap = true; return p }
	for _, c := range append(pairs(), struct {
		name string
		make func(t *testing.T) pair
	}{"postgres-wrapped", wrapped}) {
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

// TestMixedOptionsFailover (case 2): A (TTL 6 s) is forgotten by a
// failover; B (TTL 1 s) must wait out A's horizon, not its own.
func TestMixedOptionsFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	p := pgPair(t)
	oa := leaseConf{LeaseOptions: node.LeaseOptions{TTL: 6 * time.Second}}
	ob := leaseConf{LeaseOptions: node.LeaseOptions{TTL: time.Second}}
	pa := tcpproxy.Start(t, p.primary)
	sa := p.store(t, pa.Addr())
	w := lease(t, sa, oa) // A's options are known to the store before the loss
	_ = w.Close(context.Background())
	p.caughtUp(t)
	p.detach(t)
	a := issue(t, lease(t, sa, oa))
	time.Sleep(ob.TTL)
	p.promote(t)
	pa.Cut()
	p.kill(t)
	b := issue(t, lease(t, p.store(t, p.replica), ob))
	time.Sleep(oa.TTL)
	dups, n := duplicates(a.halt(), b.halt())
	t.Logf("%d duplicates of %d IDs", dups, n)
	if dups != 0 {
		t.Errorf("%d duplicate IDs", dups)
	}
}

// holdProxy accepts connections but connects them to its target only once
// released, as a connection hung in the network; the target may change
// meanwhile.
type holdProxy struct {
	ln      net.Listener
	target  atomic.Pointer[string]
	mu      sync.Mutex
	release chan struct{}
}

func startHold(t *testing.T, target string) *holdProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &holdProxy{ln: ln, release: make(chan struct{})}
	close(h.release)
	h.target.Store(&target)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.mu.Lock()
			rel := h.release
			h.mu.Unlock()
			go func() {
				<-rel
				s, err := net.Dial("tcp", *h.target.Load())
				if err != nil {
					c.Close()
					return
				}
				go func() { _, _ = copyConn(s, c) }()
				_, _ = copyConn(c, s)
			}()
		}
	}()
	return h
}

func copyConn(dst, src net.Conn) (int64, error) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	var n int64
	for {
		k, err := src.Read(buf)
		if k > 0 {
			if _, werr := dst.Write(buf[:k]); werr != nil {
				return n, werr
			}
			n += int64(k)
		}
		if err != nil {
			return n, err
		}
	}
}

func (h *holdProxy) hold() {
	h.mu.Lock()
	h.release = make(chan struct{})
	h.mu.Unlock()
}

func (h *holdProxy) moveAndRelease(target string) {
	h.target.Store(&target)
	h.mu.Lock()
	close(h.release)
	h.mu.Unlock()
}

// TestClaimHeldAcrossFailover (case 3): B's claim is sent before the
// failover and reaches the new primary after it, while A, forgotten,
// renewed on the old primary until it died. B's floor must count from
// when its claim arrived, not from when it was sent.
func TestClaimHeldAcrossFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	p := pgPair(t)
	o := leaseConf{LeaseOptions: node.LeaseOptions{TTL: 6 * time.Second}} // A trusts its lease well past a floor counted from sending
	pa := tcpproxy.Start(t, p.primary)
	w := lease(t, p.store(t, pa.Addr()), o)
	_ = w.Close(context.Background())
	p.caughtUp(t)
	p.detach(t)
	p.promote(t)
	a := issue(t, lease(t, p.store(t, pa.Addr()), o))
	hb := startHold(t, p.primary)
	db, err := sql.Open(p.driver, p.dsn(hb.ln.Addr().String()))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(0) // the claim dials a new connection
	sb, err := node.NewSQLStore(context.Background(), db, node.SQLStoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hb.hold()
	var b *flat
	started := make(chan struct{})
	go func() {
		defer close(started)
		l, err := node.NewLease(context.Background(), sb, o.LeaseOptions, o.gen()...)
		if err != nil {
			t.Error(err)
			return
		}
		b = issue(t, l)
	}()
	// A renews on the old primary meanwhile, so that A's lease outlives a
	// floor counted from when B's claim was sent.
	time.Sleep(2 * o.TTL)
	t.Logf("cut at %s; A: %+v", time.Now().Format("15:04:05.000"), a.lease.Stats())
	pa.Cut() // the failover: A is cut off, B's claim reaches the new primary
	hb.moveAndRelease(p.replica)
	p.kill(t)
	<-started
	if b == nil {
		t.FailNow()
	}
	time.Sleep(o.TTL + o.TTL/2)
	aIDs, bIDs := a.halt(), b.halt()
	dups, n := duplicates(aIDs, bIDs)
	at := func(ids []types.Snowflake, i int) string {
		if len(ids) == 0 {
			return "none"
		}
		p, _ := generator.Twitter().Decompose(ids[(i+len(ids))%len(ids)])
		return fmt.Sprintf("node %d at %s", p.Node, p.Time.Format("15:04:05.000"))
	}
	t.Logf("%d duplicates of %d IDs; A's last ID %s, B's first %s", dups, n, at(aIDs, -1), at(bIDs, 0))
	if dups != 0 {
		t.Errorf("%d duplicate IDs", dups)
	}
}

// TestFirstClaimLostWithTable (case 4): the table was created and
// replicated, then the replica fell behind and A's first claim is lost.
// The promoted replica's table must not look new.
func TestFirstClaimLostWithTable(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	for _, c := range pairs() {
		t.Run(c.name, func(t *testing.T) {
			p := c.make(t)
			o := leaseConf{LeaseOptions: node.LeaseOptions{TTL: 2 * time.Second}}
			pa := tcpproxy.Start(t, p.primary)
			sa := p.store(t, pa.Addr()) // creates the table
			p.caughtUp(t)
			p.detach(t)
			p.promote(t)
			sb := p.store(t, p.replica)
			a := issue(t, lease(t, sa, o))
			time.Sleep(o.TTL / 4)
			pa.Cut()
			p.kill(t)
			b := issue(t, lease(t, sb, o))
			time.Sleep(o.TTL + o.TTL/2)
			dups, n := duplicates(a.halt(), b.halt())
			t.Logf("%s: %d duplicates of %d IDs", c.name, dups, n)
			if dups != 0 {
				t.Errorf("%d duplicate IDs", dups)
			}
		})
	}
}

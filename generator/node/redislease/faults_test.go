package redislease_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testservers"
)

// pair is a Redis master and a replica that follows it through a proxy
// (cut to detach it), both of the test's own.
type pair struct {
	primary, replica *testservers.Redis
	link             *tcpproxy.Proxy
}

func startPair(t *testing.T) pair {
	t.Helper()
	if testing.Short() {
		t.Skip("starts servers")
	}
	primary := testservers.StartRedis(t)
	link := tcpproxy.Start(t, primary.Addr())
	_, port, _ := strings.Cut(link.Addr(), ":")
	replica := testservers.StartRedis(t, "--replicaof", "127.0.0.1", port)
	primary.WaitSynced(t, replica)
	return pair{primary, replica, link}
}

// detach cuts the replica off and waits until the master no longer
// counts it.
func (p pair) detach(t *testing.T) {
	t.Helper()
	p.link.Cut()
	deadline := time.Now().Add(10 * time.Second)
	for p.primary.Info(t, "replication", "connected_slaves") != "0" {
		if time.Now().After(deadline) {
			t.Fatal("the master still counts its replica")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLapsedRenewalOnPromotedReplica: holder A's path is cut past its
// TTL; C claims A's node on the master, which the replica (detached)
// never sees; the replica is promoted and the master dies, so the new
// master still names A. A's next renewal must not trust the lease again:
// the master's replication ID is not the one A saw.
func TestLapsedRenewalOnPromotedReplica(t *testing.T) {
	p := startPair(t)
	o := faultOptions()
	pa, pc := via(t, p.primary.Addr()), via(t, p.primary.Addr())
	a := issue(storeVia(t, pa.Addr(), "leases", redislease.StoreOptions{}), o)
	a.started(t, 5*time.Second)
	p.primary.WaitSynced(t, p.replica) // the replica has A's claim
	time.Sleep(o.TTL / 4)
	pa.Cut()
	time.Sleep(o.TTL + o.TTL/4) // A lapses
	p.detach(t)
	c := issue(storeVia(t, pc.Addr(), "leases", redislease.StoreOptions{}), o)
	c.started(t, 5*time.Second)
	time.Sleep(o.TTL / 4)
	// The failover: the replica is promoted, the master dies; A's path
	// reaches the new master, C's stays dead (C issues until its lease
	// lapses).
	p.replica.Do(t, "REPLICAOF", "NO", "ONE")
	p.primary.Kill(t)
	pc.Cut()
	if err := pa.MoveTo(p.replica.Addr()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * o.TTL)
	report(t, a, c)
}

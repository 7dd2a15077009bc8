package redislease_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/internal/testservers"
)

// The fault cases on Redis Cluster, through redis.ClusterClient as users
// connect: the lease hash "leases" lives in one slot, whose master and
// replica the tests fail over with CLUSTER FAILOVER TAKEOVER.

// shard is a Redis Cluster of the test's own and the master and replica
// of the lease hash's slot.
type shard struct {
	cluster         *testservers.Cluster
	master, replica *testservers.Redis
}

func startShard(t *testing.T) shard {
	t.Helper()
	if testing.Short() {
		t.Skip("starts servers")
	}
	c := testservers.StartCluster(t)
	m, r := c.SlotOwner(t, "leases")
	m.WaitSynced(t, r)
	return shard{c, m, r}
}

// detach stops the replica (SIGSTOP) and drops its link, so that it
// misses the master's writes from now on and the master counts no
// replica.
func (s shard) detach(t *testing.T) {
	t.Helper()
	s.replica.Pause(t)
	s.master.Do(t, "CLIENT", "KILL", "TYPE", "replica")
	deadline := time.Now().Add(10 * time.Second)
	for s.master.Info(t, "replication", "connected_slaves") != "0" {
		if time.Now().After(deadline) {
			t.Fatal("the master still counts its replica")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// takeover kills the master and makes the (detached) replica take its
// slots.
func (s shard) takeover(t *testing.T) {
	t.Helper()
	s.master.Kill(t)
	s.replica.Resume(t)
	s.replica.Do(t, "CLUSTER", "FAILOVER", "TAKEOVER")
	deadline := time.Now().Add(10 * time.Second)
	for s.replica.Info(t, "replication", "role") != "master" {
		if time.Now().After(deadline) {
			t.Fatal("the replica did not take over")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// gate is a cluster client's network: cut closes its connections and
// refuses new ones until open.
type gate struct {
	mu     sync.Mutex
	shut   bool
	conns  []net.Conn
	client *redis.ClusterClient
}

func (g *gate) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut {
		return nil, errors.New("partitioned")
	}
	c, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, network, addr)
	if err == nil {
		g.conns = append(g.conns, c)
	}
	return c, err
}

func (g *gate) cut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.shut = true
	for _, c := range g.conns {
		c.Close()
	}
	g.conns = nil
}

// open lets the client reach the cluster again and makes it read the
// cluster's slots at once, as it does on its next redirection.
func (g *gate) open() {
	g.mu.Lock()
	g.shut = false
	g.mu.Unlock()
	if g.client != nil {
		g.client.ReloadState(context.Background())
	}
}

// clusterStore returns a store of the hash "leases" with opts on a
// ClusterClient of the cluster whose network is g, closed when t ends.
func (s shard) clusterStore(t *testing.T, g *gate, opts redislease.StoreOptions) node.Store {
	var addrs []string
	for _, n := range s.cluster.Nodes {
		addrs = append(addrs, n.Addr())
	}
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, Dialer: g.dial,
		DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second})
	t.Cleanup(func() { c.Close() })
	g.client = c
	opts.Key = "leases"
	return redislease.NewStore(c, opts)
}

// TestClusterWaitsForSlotReplica: through a ClusterClient, renewals wait
// for the replica of the hash's slot (WAIT runs on the slot's master, not
// on any master): with that replica stopped, the holder fences; resumed,
// it issues again.
func TestClusterWaitsForSlotReplica(t *testing.T) {
	s := startShard(t)
	o := faultOptions()
	a := issue(s.clusterStore(t, &gate{}, redislease.StoreOptions{}), o)
	a.started(t, 10*time.Second)
	s.replica.Pause(t)
	deadline := time.Now().Add(3 * o.TTL)
	for a.l.Stats().Fences == 0 {
		if time.Now().After(deadline) {
			s.replica.Resume(t)
			t.Fatalf("renewals went on with the slot's replica stopped: %+v", a.l.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.replica.Resume(t)
	a.mu.Lock()
	n := len(a.ids)
	a.mu.Unlock()
	deadline = time.Now().Add(5 * o.TTL)
	for {
		a.mu.Lock()
		more := len(a.ids) > n
		a.mu.Unlock()
		if more {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no ID after the replica came back: %+v", a.l.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	a.halt()
}

// TestClusterLapsedRenewalAfterTakeover is TestLapsedRenewalOnPromotedReplica
// on Redis Cluster: A is cut off past its TTL, C claims A's node on the
// master, which the detached replica never sees; the replica takes over
// and C is cut off, A's network comes back. A's next renewal must not
// trust the lease again. C trusts its lease nearly to its expiry, so that
// it still issues when A's client has found the new master.
func TestClusterLapsedRenewalAfterTakeover(t *testing.T) {
	s := startShard(t)
	o := faultOptions()
	ga, gc := &gate{}, &gate{}
	a := issue(s.clusterStore(t, ga, redislease.StoreOptions{}), o)
	a.started(t, 10*time.Second)
	s.master.WaitSynced(t, s.replica) // the replica has A's claim
	time.Sleep(o.TTL / 4)
	ga.cut()
	time.Sleep(o.TTL + o.TTL/4) // A lapses
	s.detach(t)
	oc := o
	oc.Margin = 50 * time.Millisecond // C trusts its lease until 50 ms before expiry
	// C waits for no replica: with the defaults its claim on a master
	// whose replica is stopped is refused.
	c := issue(s.clusterStore(t, gc, redislease.StoreOptions{Replicas: -1}), oc)
	c.started(t, 10*time.Second)
	time.Sleep(o.TTL / 4)
	s.takeover(t)
	gc.cut() // C issues until its lease lapses
	ga.open()
	time.Sleep(2 * o.TTL)
	report(t, a, c)
}

// TestClusterMixedOptionsTakeover is TestMixedOptionsFailover on Redis
// Cluster, through ClusterClients, the replica taking over the slot.
func TestClusterMixedOptionsTakeover(t *testing.T) {
	s := startShard(t)
	mixedOptions(t, topology{
		store: func(promoted bool) node.Store {
			if promoted {
				return s.clusterStore(t, &gate{}, redislease.StoreOptions{})
			}
			return s.clusterStore(t, &gate{}, redislease.StoreOptions{Replicas: -1})
		},
		synced:     func() { s.master.WaitSynced(t, s.replica) },
		detach:     func() { s.detach(t) },
		promote:    func() { s.takeover(t) },
		startAfter: 3,
	})
}

// TestClusterEvictingPolicyRefused: NewLease through a ClusterClient
// refuses a slot master whose maxmemory-policy may evict the lease hash.
func TestClusterEvictingPolicyRefused(t *testing.T) {
	s := startShard(t)
	s.master.Do(t, "CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
	_, err := node.NewLease(context.Background(), s.clusterStore(t, &gate{}, redislease.StoreOptions{}), node.LeaseOptions{})
	require.ErrorIs(t, err, generator.ErrInvalidConfig)
	require.ErrorContains(t, err, "maxmemory-policy is allkeys-lfu")
}

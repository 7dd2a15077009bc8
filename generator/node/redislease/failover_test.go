package redislease_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/internal/failovertest"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testservers"
)

// failoverStore is a store on the Redis server at addr, its client closed
// when t ends. It waits for no replica (Replicas -1): with the defaults
// holder A's claim on a master its replica has left is refused, and the
// scenario checks that a claim lost in a failover is noticed and waited
// out.
func failoverStore(t *testing.T, addr string) node.Store {
	c := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return redislease.NewStore(c, redislease.StoreOptions{Key: "leases", Replicas: -1})
}

// TestFailoverRedis: a Redis master without persistence and a replica
// (--replicaof) that is detached before holder A's claim and then promoted
// (REPLICAOF NO ONE).
func TestFailoverRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	failovertest.Check(t, "Redis", func(t *testing.T) failovertest.Setup {
		primary := testservers.StartRedis(t)
		link := tcpproxy.Start(t, primary.Addr())
		_, port, _ := strings.Cut(link.Addr(), ":")
		replica := testservers.StartRedis(t, "--replicaof", "127.0.0.1", port)
		return failovertest.Setup{
			Store:    failoverStore,
			Primary:  primary.Addr(),
			Replica:  replica.Addr(),
			CaughtUp: func(t *testing.T) { primary.WaitSynced(t, replica) },
			Detach:   func(t *testing.T) { link.Cut() },
			Promote:  func(t *testing.T) { replica.Do(t, "REPLICAOF", "NO", "ONE") },
			Kill:     func(t *testing.T) { primary.Kill(t) },
		}
	})
}

// TestFailoverRedisCluster: a Redis Cluster of three masters with a replica
// each; the replica of the lease key's slot is paused and its link cut
// before holder A's claim, then the master dies and the replica takes over
// (CLUSTER FAILOVER TAKEOVER). The holders reach the slot's master through
// a proxy that moves, as a client following the cluster's redirections
// does.
func TestFailoverRedisCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	failovertest.Check(t, "Redis Cluster", func(t *testing.T) failovertest.Setup {
		c := testservers.StartCluster(t)
		primary, replica := c.SlotOwner(t, "leases")
		return failovertest.Setup{
			Store:    failoverStore,
			Primary:  primary.Addr(),
			Replica:  replica.Addr(),
			CaughtUp: func(t *testing.T) { primary.WaitSynced(t, replica) },
			Detach: func(t *testing.T) {
				replica.Pause(t)
				primary.Do(t, "CLIENT", "KILL", "TYPE", "replica")
			},
			Promote: func(t *testing.T) {
				primary.Kill(t)
				replica.Resume(t)
				replica.Do(t, "CLUSTER", "FAILOVER", "TAKEOVER")
				deadline := time.Now().Add(10 * time.Second)
				for replica.Info(t, "replication", "role") != "master" {
					if time.Now().After(deadline) {
						t.Fatal("replica did not take over")
					}
					time.Sleep(20 * time.Millisecond)
				}
			},
			Kill: func(t *testing.T) {},
		}
	})
}

// TestFailoverRedisRestart: a Redis server without persistence restarts
// and forgets every lease (holder A's included); holder B claims on it.
func TestFailoverRedisRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	failovertest.Check(t, "Redis restart", func(t *testing.T) failovertest.Setup {
		r := testservers.StartRedis(t)
		return failovertest.Setup{
			Store:    failoverStore,
			Primary:  r.Addr(),
			Replica:  r.Addr(),
			CaughtUp: func(t *testing.T) {},
			Detach:   func(t *testing.T) {},
			Promote:  func(t *testing.T) {},
			Kill:     func(t *testing.T) { r.Restart(t) },
		}
	})
}

// TestBlindRedisWarns: on a server whose INFO command is disabled, claims
// still work and the store logs one WARN that it cannot tell a failover.
func TestBlindRedisWarns(t *testing.T) {
	r := testservers.StartRedis(t, "--rename-command", "INFO", "")
	c := redis.NewClient(&redis.Options{Addr: r.Addr()})
	defer c.Close()
	s := redislease.NewStore(c, redislease.StoreOptions{})
	var buf strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}), nil))
	ctx := context.Background()
	for range 3 {
		l, err := node.NewLease(ctx, s, node.LeaseOptions{Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close(ctx)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(buf.String(), "cannot read the Redis master replication ID"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, buf.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

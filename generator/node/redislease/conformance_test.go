package redislease_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/nodetest"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/internal/testservers"
)

// The conformance suite of package nodetest on Redis: a master with
// asynchronous replicas fed through proxies (Detach cuts the first), and
// Redis Cluster, whose lease slot fails over by CLUSTER FAILOVER TAKEOVER.

type dialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// hashKeys are the lease hash and its two index sets.
func hashKeys(key string) []string {
	return []string{key, "{" + key + "}:held", "{" + key + "}:free"}
}

// redisRecords is the harness part that works on the lease keys through
// an admin client: snapshots, corrupt fields, the identity.
func redisRecords(key string, admin func(t *testing.T) redis.Cmdable, h *nodetest.Harness) {
	ctx := context.Background()
	h.Snapshot = func(t *testing.T) func(t *testing.T, step bool) {
		c := admin(t)
		dumps := map[string]string{}
		for _, k := range hashKeys(key) {
			d, err := c.Dump(ctx, k).Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				t.Fatal(err)
			}
			dumps[k] = d
		}
		// In one MULTI/EXEC: the keys share a slot.
		return func(t *testing.T, step bool) {
			_, err := admin(t).TxPipelined(ctx, func(p redis.Pipeliner) error {
				for k, d := range dumps {
					if d == "" {
						p.Del(ctx, k)
					} else {
						p.RestoreReplace(ctx, k, 0, d)
					}
				}
				if step {
					p.HSet(ctx, key, "ident", "restored")
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	h.Forget = func(t *testing.T) {
		if err := admin(t).HDel(ctx, key, "ident").Err(); err != nil {
			t.Fatal(err)
		}
	}
	// The node's expiry and mark, then the hash's store-wide mark,
	// horizon and version.
	h.Corrupt = func(t *testing.T, n int64, i int) (string, func(t *testing.T)) {
		fields := []struct {
			name, value string
			own         bool
		}{
			{"e:" + strconv.FormatInt(n, 10), "soon", true},
			{"h:" + strconv.FormatInt(n, 10), "1e400", true},
			{"mark", "99999999999999999999", false},
			{"hz", "ten", false},
			{"v", "-", false},
		}
		if i >= len(fields) {
			return "", nil
		}
		f := fields[i]
		c := admin(t)
		old, err := c.HGet(ctx, key, f.name).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			t.Fatal(err)
		}
		if err := c.HSet(ctx, key, f.name, f.value).Err(); err != nil {
			t.Fatal(err)
		}
		if f.own {
			return f.name, nil
		}
		return f.name, func(t *testing.T) {
			var err error
			if old == "" {
				err = admin(t).HDel(ctx, key, f.name).Err()
			} else {
				err = admin(t).HSet(ctx, key, f.name, old).Err()
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// redisHarness: a master of its own; replicas follow it through proxies.
func redisHarness() nodetest.Harness {
	var master *testservers.Redis
	var replicas []*testservers.Redis
	var links []*tcpproxy.Proxy
	var promoted atomic.Bool
	client := func(t *testing.T, addr string, dial dialFunc) *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: addr, Dialer: dial, DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second, MaxRetries: -1})
		t.Cleanup(func() { c.Close() })
		return c
	}
	h := nodetest.Harness{
		SetsKept: true,
		Start: func(t *testing.T) {
			master, replicas, links = testservers.StartRedis(t), nil, nil
			promoted.Store(false)
		},
		Store: func(t *testing.T, dial dialFunc) node.Store {
			return redislease.NewStore(client(t, master.Addr(), dial), redislease.StoreOptions{})
		},
		Route: func(addr string) string {
			if addr == master.Addr() && promoted.Load() {
				return replicas[0].Addr()
			}
			return addr
		},
		Replicate: func(t *testing.T) {
			l := tcpproxy.Start(t, master.Addr())
			_, port, _ := strings.Cut(l.Addr(), ":")
			r := testservers.StartRedis(t, "--replicaof", "127.0.0.1", port)
			master.WaitSynced(t, r)
			links, replicas = append(links, l), append(replicas, r)
		},
		CaughtUp: func(t *testing.T) {
			for i, r := range replicas {
				if i > 0 || !promoted.Load() {
					master.WaitSynced(t, r)
				}
			}
		},
		Detach: func(t *testing.T) {
			links[0].Cut()
			want := strconv.Itoa(len(replicas) - 1)
			deadline := time.Now().Add(10 * time.Second)
			for master.Info(t, "replication", "connected_slaves") != want {
				if time.Now().After(deadline) {
					t.Fatal("the master still counts the detached replica")
				}
				time.Sleep(10 * time.Millisecond)
			}
		},
		Promote: func(t *testing.T) {
			replicas[0].Do(t, "REPLICAOF", "NO", "ONE")
			promoted.Store(true)
		},
		Kill: func(t *testing.T) { master.Kill(t) },
		// With its data: the server saves a snapshot and loads it on start.
		Restart: func(t *testing.T, keep bool) {
			if keep {
				master.Do(t, "SAVE")
			} else {
				master.Do(t, "FLUSHALL")
				master.Do(t, "SAVE")
			}
			master.Restart(t)
		},
	}
	redisRecords("idkit:node_leases", func(t *testing.T) redis.Cmdable { return client(t, master.Addr(), nil) }, &h)
	return h
}

// clusterHarness: a Redis Cluster of its own; the lease slot's replica is
// its only replica (Replicate checks it is synced), detached by stopping
// it (SIGSTOP) and dropping its link, promoted by CLUSTER FAILOVER
// TAKEOVER.
func clusterHarness() nodetest.Harness {
	var s shard
	var replicated, detached bool
	client := func(t *testing.T, dial dialFunc) *redis.ClusterClient {
		var addrs []string
		for _, n := range s.cluster.Nodes {
			addrs = append(addrs, n.Addr())
		}
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, Dialer: dial,
			DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second})
		t.Cleanup(func() { c.Close() })
		return c
	}
	h := nodetest.Harness{
		SetsKept: true,
		Start: func(t *testing.T) {
			s, replicated, detached = startShard(t), false, false
		},
		Store: func(t *testing.T, dial dialFunc) node.Store {
			return redislease.NewStore(client(t, dial), redislease.StoreOptions{Key: "leases"})
		},
		Replicate: func(t *testing.T) {
			if replicated {
				t.Skip("the cluster has one replica per master")
			}
			replicated = true
			s.master.WaitSynced(t, s.replica)
		},
		CaughtUp: func(t *testing.T) {
			if !detached {
				s.master.WaitSynced(t, s.replica)
			}
		},
		Detach: func(t *testing.T) {
			s.detach(t)
			detached = true
		},
		Promote: func(t *testing.T) {
			if detached {
				s.replica.Resume(t)
			}
			s.replica.Do(t, "CLUSTER", "FAILOVER", "TAKEOVER")
			deadline := time.Now().Add(10 * time.Second)
			for s.replica.Info(t, "replication", "role") != "master" {
				if time.Now().After(deadline) {
					t.Fatal("the replica did not take over")
				}
				time.Sleep(20 * time.Millisecond)
			}
		},
		Kill: func(t *testing.T) { s.master.Kill(t) },
		Unsupported: map[string]string{
			"Restart":    "a cluster node restarted empty rejoins with a new node ID: the cluster forgets it",
			"SplitBrain": "the old master learns of the takeover from the cluster bus and redirects its clients to the new one",
		},
	}
	redisRecords("leases", func(t *testing.T) redis.Cmdable { return client(t, nil) }, &h)
	return h
}

func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	t.Run("redis", func(t *testing.T) { t.Parallel(); nodetest.Run(t, noProtocol(redisHarness)) })
	t.Run("cluster", func(t *testing.T) { t.Parallel(); nodetest.Run(t, noProtocol(clusterHarness)) })
}

// noProtocol leaves the protocol cases to TestProtocol, which runs them on
// the shared server in seconds.
func noProtocol(h func() nodetest.Harness) func() nodetest.Harness {
	return func() nodetest.Harness {
		x := h()
		if x.Unsupported == nil {
			x.Unsupported = map[string]string{}
		}
		x.Unsupported["Protocol"] = "TestProtocol runs the protocol cases on the shared server"
		return x
	}
}

// TestProtocol runs the protocol cases of package nodetest on the shared
// Redis, each on a key of its own (the fault cases of a Store-only
// harness are TestConformance's).
func TestProtocol(t *testing.T) {
	addr := testdb.RequireRedis(t)
	why := "TestConformance runs it on a server of its own"
	nodetest.Run(t, func() nodetest.Harness {
		key := testdb.Name("proto")
		return nodetest.Harness{
			SetsKept: true,
			Store: func(t *testing.T, dial dialFunc) node.Store {
				c := redis.NewClient(&redis.Options{Addr: addr, Dialer: dial})
				t.Cleanup(func() { c.Del(context.Background(), hashKeys(key)...); c.Close() })
				return redislease.NewStore(c, redislease.StoreOptions{Key: key})
			},
			Unsupported: map[string]string{"EightHandles": why, "Partition": why, "Pause": why},
		}
	})
}

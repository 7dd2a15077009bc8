package etcdlease_test

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/etcdlease"
	"github.com/idkit-go/idkit/generator/node/nodetest"
)

// The conformance suite of package nodetest on etcd: one embedded member
// of its own per case, on fixed loopback ports so that it restarts where
// its clients look for it.

const conformancePrefix = "idkit/node_leases/"

// member is a one-member etcd cluster that can restart on its ports.
type member struct {
	dir          string
	client, peer url.URL
	e            *embed.Etcd
}

func startMember(t *testing.T) *member {
	t.Helper()
	ports, err := freePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	m := &member{dir: filepath.Join(t.TempDir(), "m"),
		client: url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[0])},
		peer:   url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[1])}}
	m.start(t)
	t.Cleanup(m.stop)
	return m
}

func (m *member) start(t *testing.T) {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Name, cfg.Dir = "m0", m.dir
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{m.client}, []url.URL{m.client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{m.peer}, []url.URL{m.peer}
	cfg.ListenMetricsUrls = nil
	cfg.InitialCluster = "m0=" + m.peer.String()
	cfg.InitialClusterToken = "idkit-etcdlease-conformance"
	cfg.UnsafeNoFsync = true
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		t.Fatal(err)
	case <-time.After(time.Minute):
		t.Fatal("etcd not ready after a minute")
	}
	m.e = e
}

func (m *member) stop() {
	if m.e != nil {
		m.e.Close()
		m.e = nil
	}
}

func (m *member) clientVia(t *testing.T, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *clientv3.Client {
	cfg := clientv3.Config{Endpoints: []string{m.client.Host}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()}
	if dial != nil {
		cfg.DialOptions = []grpc.DialOption{grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return dial(ctx, "tcp", addr)
		})}
	}
	c, err := clientv3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// restoreAtomically writes the backup kvs back under the prefix in one
// transaction, as a snapshot restore replaces the keys at once: the keys
// the backup lacks are deleted, its keys without an etcd lease put (and
// the operator's restored key if step); retried if a key under the prefix
// changed meanwhile.
func restoreAtomically(t *testing.T, c *clientv3.Client, kvs []*mvccpb.KeyValue, step bool) {
	ctx := context.Background()
	for {
		now, err := c.Get(ctx, conformancePrefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
		if err != nil {
			t.Fatal(err)
		}
		keep := map[string]bool{}
		var ops []clientv3.Op
		for _, kv := range kvs {
			if kv.Lease == 0 {
				keep[string(kv.Key)] = true
				ops = append(ops, clientv3.OpPut(string(kv.Key), string(kv.Value)))
			}
		}
		if step {
			keep[conformancePrefix+"restored"] = true
			ops = append(ops, clientv3.OpPut(conformancePrefix+"restored", "1"))
		}
		for _, kv := range now.Kvs {
			if !keep[string(kv.Key)] {
				ops = append(ops, clientv3.OpDelete(string(kv.Key)))
			}
		}
		unchanged := clientv3.Compare(clientv3.ModRevision(conformancePrefix).WithPrefix(), "<", now.Header.Revision+1)
		r, err := c.Txn(ctx).If(unchanged).Then(ops...).Commit()
		if err != nil {
			t.Fatal(err)
		}
		if r.Succeeded {
			return
		}
	}
}

func etcdHarness() nodetest.Harness {
	var m *member
	ctx := context.Background()
	return nodetest.Harness{
		Start: func(t *testing.T) { m = startMember(t) },
		Store: func(t *testing.T, dial func(ctx context.Context, network, addr string) (net.Conn, error)) node.Store {
			return etcdlease.NewStore(m.clientVia(t, dial), etcdlease.StoreOptions{Prefix: conformancePrefix})
		},
		Restart: func(t *testing.T, keep bool) {
			m.stop()
			if !keep {
				if err := os.RemoveAll(m.dir); err != nil {
					t.Fatal(err)
				}
			}
			m.start(t)
		},
		// At the key level, as etcdutl snapshot restore rewinds them.
		Snapshot: func(t *testing.T) func(t *testing.T, step bool) {
			kvs := keyBackup(t, m.clientVia(t, nil), conformancePrefix)
			return func(t *testing.T, step bool) { restoreAtomically(t, m.clientVia(t, nil), kvs, step) }
		},
		Corrupt: func(t *testing.T, n int64, i int) (string, func(t *testing.T)) {
			// The node's own mark (healed by its holder's claim), not a
			// mark or out of range (in 2255); the store-wide mark and
			// horizon (repaired), not marks or out of range (a mark in
			// 2255, a horizon of 31 years, which would wrap a floor).
			own := fmt.Sprintf("%sh/%d", conformancePrefix, n)
			fields := []struct{ key, value string }{
				{own, "soon"},
				{own, "9000000000000000000"},
				{conformancePrefix + "mark", "99999999999999999999"},
				{conformancePrefix + "mark", "9000000000000000000"},
				{conformancePrefix + "horizon", "ten"},
				{conformancePrefix + "horizon", "1000000000000000000"},
			}
			if i >= len(fields) {
				return "", nil
			}
			f := fields[i]
			c := m.clientVia(t, nil)
			old, err := c.Get(ctx, f.key)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Put(ctx, f.key, f.value); err != nil {
				t.Fatal(err)
			}
			if f.key == own {
				return f.key, nil
			}
			return f.key, func(t *testing.T) {
				var err error
				if len(old.Kvs) == 0 {
					_, err = c.Delete(ctx, f.key)
				} else {
					_, err = c.Put(ctx, f.key, string(old.Kvs[0].Value))
				}
				if err != nil {
					t.Fatal(err)
				}
			}
		},
		Unsupported: map[string]string{
			"Replicate": "Raft commits every acknowledged write on a quorum: etcd has no asynchronous replica to fail over to",
			// Restart keeps the data; a member rebuilt empty is a restore
			// (the Restore cases, with the operator step of docs/leases.md).
			"Restart/empty": "etcd answers only once a write is on disk; a member rebuilt empty under the same name, URLs and token keeps the cluster ID, which is a restore",
			"Forget":        "etcd's identity is its cluster ID, not a record",
		},
	}
}

func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	nodetest.Run(t, func() nodetest.Harness {
		h := etcdHarness()
		h.Unsupported["Protocol"] = "TestProtocol runs the protocol cases on the shared cluster"
		return h
	})
}

// TestProtocol runs the protocol cases of package nodetest on the shared
// cluster, each under a key prefix of its own (the fault cases of a
// Store-only harness are TestConformance's).
func TestProtocol(t *testing.T) {
	c := shared(t).client(t)
	why := "TestConformance runs it on a member of its own"
	nodetest.Run(t, func() nodetest.Harness {
		var p string
		return nodetest.Harness{
			// One client for every case: the protocol cases cut no
			// connection.
			Store: func(t *testing.T, _ func(ctx context.Context, network, addr string) (net.Conn, error)) node.Store {
				if p == "" {
					p = prefix(t)
					t.Cleanup(func() { _, _ = c.Delete(context.Background(), p, clientv3.WithPrefix()) })
				}
				return etcdlease.NewStore(c, etcdlease.StoreOptions{Prefix: p})
			},
			Unsupported: map[string]string{"EightHandles": why, "Partition": why, "Pause": why},
		}
	})
}

// TestConformanceSnapshot runs the Restore cases of the suite with real
// snapshots: saved through the maintenance API, as etcdctl snapshot save
// does, and restored with etcdutl snapshot restore onto the same member
// and token (the cluster ID stays), the member stopped meanwhile, after
// 2,000 writes of other users since the snapshot, as on a cluster that
// others use: with etcdutl's defaults (the revision goes back), and with
// --bump-revision --mark-compacted (it jumps ahead). A store-fault test:
// IDKIT_FAULTS=1 runs it.
func TestConformanceSnapshot(t *testing.T) {
	faults(t)
	etcdutl(t)
	why := "TestConformance runs it"
	for _, v := range []struct {
		name  string
		flags []string
	}{
		{"default", nil},
		{"bump-revision", []string{"--bump-revision", "1000000", "--mark-compacted"}},
	} {
		t.Run(v.name, func(t *testing.T) {
			nodetest.Run(t, func() nodetest.Harness {
				var m *member
				return nodetest.Harness{
					Start: func(t *testing.T) { m = startMember(t) },
					Store: func(t *testing.T, dial func(ctx context.Context, network, addr string) (net.Conn, error)) node.Store {
						return etcdlease.NewStore(m.clientVia(t, dial), etcdlease.StoreOptions{Prefix: conformancePrefix})
					},
					Snapshot: func(t *testing.T) func(t *testing.T, step bool) {
						snap := saveSnapshot(t, m.clientVia(t, nil))
						return func(t *testing.T, step bool) {
							otherWrites(t, m.clientVia(t, nil))
							down := m.restoreSnapshot(t, snap, "idkit-etcdlease-conformance", v.flags...)
							t.Logf("the member was down %v for the restore", down.Round(time.Millisecond))
							if step {
								if _, err := m.clientVia(t, nil).Put(context.Background(), conformancePrefix+"restored", "1"); err != nil {
									t.Fatal(err)
								}
							}
						}
					},
					Unsupported: map[string]string{"Replicate": why, "Restart": why, "Corrupt": why, "Forget": why,
						"EightHandles": why, "Partition": why, "Pause": why, "Protocol": why},
				}
			})
		})
	}
}

package kubelease

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/nodetest"
)

// The conformance suite of package nodetest on a real kube-apiserver. The
// cases that fault the servers (a restart of the API server, etcd emptied
// or restored under it) start an API server and etcd of their own; the
// others share one, each in a namespace of its own.

const conformancePrefix = "idkit-node"

// newNamespace creates a namespace of its own on s for one case.
func newNamespace(t *testing.T, s *apiServer) string {
	t.Helper()
	ns := fmt.Sprintf("nodetest-%d", nsSeq.Add(1))
	_, err := s.Client().CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

var nsSeq atomic.Int64

// storeVia returns a store on s in ns whose client dials with dial.
func storeVia(t *testing.T, s *apiServer, ns string, dial func(ctx context.Context, network, addr string) (net.Conn, error)) node.Store {
	cfg := s.Config(s.Host, adminToken)
	cfg.Dial = dial
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return NewStore(c.CoordinationV1(), StoreOptions{Namespace: ns, Prefix: conformancePrefix})
}

// kubeHarness is the harness of one case: on shared, in a namespace of
// its own, without the server faults; or, shared nil, on an API server and
// etcd of its own, with them.
func kubeHarness(shared *apiServer) func() nodetest.Harness {
	return func() nodetest.Harness {
		var s *apiServer
		var ns string
		ctx := context.Background()
		h := nodetest.Harness{
			Start: func(t *testing.T) { s, ns = shared, newNamespace(t, shared) },
			Store: func(t *testing.T, dial func(ctx context.Context, network, addr string) (net.Conn, error)) node.Store {
				return storeVia(t, s, ns, dial)
			},
			// The node's own numbers (healed by its holder's claim), not a
			// number or out of range: a mark in 2255, a horizon of 285
			// years that would wrap a floor; the identity's horizon and
			// floor (repaired), out of range.
			Corrupt: func(t *testing.T, n int64, i int) (string, func(t *testing.T)) {
				fields := []struct {
					own        bool
					key, value string
				}{
					{true, annMark, "soon"},
					{true, annMark, "9000000000000000000"},
					{true, annHorizon, "9000000000000000000"},
					{false, annHorizon, "9000000000000000000"},
					{false, annFloor, "9000000000000000000"},
				}
				if i >= len(fields) {
					return "", nil
				}
				f := fields[i]
				name := conformancePrefix + "-identity"
				if f.own {
					name = fmt.Sprintf("%s-%d", conformancePrefix, n)
				}
				c := s.Client().CoordinationV1().Leases(ns)
				o, err := c.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				old, had := o.Annotations[f.key]
				o.Annotations[f.key] = f.value
				if _, err := c.Update(ctx, o, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
				if f.own {
					return f.key, nil
				}
				return f.key, func(t *testing.T) {
					for {
						o, err := c.Get(ctx, name, metav1.GetOptions{})
						if err != nil {
							t.Fatal(err)
						}
						if had {
							o.Annotations[f.key] = old
						} else {
							delete(o.Annotations, f.key)
						}
						_, err = c.Update(ctx, o, metav1.UpdateOptions{})
						if err == nil {
							return
						}
						if !apierrors.IsConflict(err) {
							t.Fatal(err)
						}
					}
				}
			},
			Forget: func(t *testing.T) {
				err := s.Client().CoordinationV1().Leases(ns).Delete(ctx, conformancePrefix+"-identity", metav1.DeleteOptions{})
				if err != nil {
					t.Fatal(err)
				}
			},
			Unsupported: map[string]string{
				"Replicate": "the API server stores in etcd, whose Raft loses no acknowledged write: there is no asynchronous replica to fail over to (an etcd restore is the Restore cases)",
				"Restart":   "run by TestConformance/own, on an API server of its own",
				"Snapshot":  "run by TestConformance/own, on an API server of its own",
			},
		}
		if shared != nil {
			return h
		}
		h.Start = func(t *testing.T) {
			t0 := time.Now()
			s, ns = startAPIServer(t), "default"
			t.Logf("API server started in %v", time.Since(t0).Round(time.Millisecond))
		}
		// With its data: the API server restarts on the same etcd.
		// Without: etcd starts empty under it, as a new cluster.
		h.Restart = func(t *testing.T, keep bool) {
			t0 := time.Now()
			defer func() { t.Logf("restart (keep %v) took %v", keep, time.Since(t0).Round(time.Millisecond)) }()
			var err error
			if keep {
				err = s.Restart()
			} else {
				err = s.RestoreEtcd("")
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		// etcd's data copied while stopped; the restore puts it back under
		// a stopped API server, which starts on it (the resourceVersions go
		// back). The operator step deletes the identity object.
		h.Snapshot = func(t *testing.T) func(t *testing.T, step bool) {
			dst := filepath.Join(t.TempDir(), "etcd-copy")
			t0 := time.Now()
			defer func() { t.Logf("etcd copied in %v", time.Since(t0).Round(time.Millisecond)) }()
			if err := s.CopyEtcd(dst); err != nil {
				t.Fatal(err)
			}
			return func(t *testing.T, step bool) {
				t0 := time.Now()
				if err := s.RestoreEtcd(dst); err != nil {
					t.Fatal(err)
				}
				t.Logf("etcd restored, API server restarted, in %v", time.Since(t0).Round(time.Millisecond))
				if step {
					err := s.Client().CoordinationV1().Leases(ns).Delete(ctx, conformancePrefix+"-identity", metav1.DeleteOptions{})
					if err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		shared := "run by TestConformance/shared, in a namespace of its own"
		h.Unsupported = map[string]string{"Replicate": h.Unsupported["Replicate"],
			"Corrupt": shared, "IdentityDeleted": shared, "EightHandles": shared, "Partition": shared, "Pause": shared}
		if raceEnabled {
			// Seen failing under the detector only, in the full run: holder
			// A did not heal within 8 s of the restart, while the API server
			// wrote a new cluster's objects into the slowed member.
			h.Unsupported["Restart/empty"] = "under the race detector, the etcd member in the test process is too slow for a new cluster's start and 2 s TTLs"
		}
		return h
	}
}

func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts API servers")
	}
	t.Run("shared", func(t *testing.T) { nodetest.Run(t, noProtocol(kubeHarness(startAPIServer(t)))) })
	t.Run("own", func(t *testing.T) { nodetest.Run(t, noProtocol(kubeHarness(nil))) })
}

// noProtocol leaves the protocol cases to TestProtocol, which runs them on
// the shared API server in seconds.
func noProtocol(h func() nodetest.Harness) func() nodetest.Harness {
	return func() nodetest.Harness {
		x := h()
		x.Unsupported["Protocol"] = "TestProtocol runs the protocol cases on the shared API server"
		return x
	}
}

// TestProtocol runs the protocol cases of package nodetest on the API
// server the tests share, each case in a namespace of its own (the fault
// cases of a Store-only harness are TestConformance's).
func TestProtocol(t *testing.T) {
	s := shared(t)
	why := "TestConformance runs it"
	nodetest.Run(t, func() nodetest.Harness {
		var ns string
		return nodetest.Harness{
			Store: func(t *testing.T, dial func(ctx context.Context, network, addr string) (net.Conn, error)) node.Store {
				if ns == "" {
					ns = newNamespace(t, s)
					t.Cleanup(func() {
						_ = s.Client().CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
					})
				}
				return storeVia(t, s, ns, dial)
			},
			Unsupported: map[string]string{"EightHandles": why, "Partition": why, "Pause": why},
		}
	})
}

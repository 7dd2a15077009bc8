package kubelease

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/idkit-go/idkit/generator/node"
)

// sharedServer is one API server for the tests of this file, started by
// the first that needs it and stopped when the tests end (TestMain).
var sharedServer struct {
	once sync.Once
	s    *apiServer
	stop func()
}

func shared(t *testing.T) *apiServer {
	t.Helper()
	sharedServer.once.Do(func() {
		h := &cleanupTB{TB: t}
		sharedServer.s = startAPIServerWith(h, func(s *apiServer) {
			s.Flags = []string{"--authorization-mode=RBAC"}
			s.Tokens = []string{leaserToken + ",leaser,2,", otherToken + ",other,3,"}
		})
		sharedServer.stop = h.run
	})
	if sharedServer.s == nil {
		t.Fatal("the shared API server did not start")
	}
	return sharedServer.s
}

// cleanupTB keeps the cleanups of the shared server for TestMain, and
// skips or fails the test that started it as that test would.
type cleanupTB struct {
	testing.TB
	mu  sync.Mutex
	fns []func()
}

func (c *cleanupTB) Cleanup(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fns = append(c.fns, f)
}

func (c *cleanupTB) TempDir() string { return tempDir() }

func (c *cleanupTB) run() {
	for i := len(c.fns) - 1; i >= 0; i-- {
		c.fns[i]()
	}
}

// The tokens of two users with no rights but those the tests bind.
const (
	leaserToken = "idkit-leaser-token"
	otherToken  = "idkit-other-token"
)

// leaseVerbs are the verbs the store needs on leases, and all it needs.
var leaseVerbs = []string{"get", "list", "create", "update"}

// grant creates a namespace with a Role of verbs on leases bound to user.
func grant(t *testing.T, s *apiServer, user string, verbs []string) string {
	t.Helper()
	ctx := context.Background()
	c := s.Client()
	ns := "kubelease-" + strconv.FormatInt(nsSeq.Add(1), 10)
	_, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "idkit-node-leases"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: verbs}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "idkit-node-leases"},
		Subjects:   []rbacv1.Subject{{Kind: "User", Name: user, APIGroup: "rbac.authorization.k8s.io"}},
		RoleRef:    rbacv1.RoleRef{Kind: "Role", Name: "idkit-node-leases", APIGroup: "rbac.authorization.k8s.io"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// RBAC reads its objects from a cache: wait until the binding works.
	deadline := time.Now().Add(10 * time.Second)
	uc := clientFor(t, s, tokenOf(user), nil)
	for {
		_, err := uc.CoordinationV1().Leases(ns).List(ctx, metav1.ListOptions{})
		if err == nil || !slices.Contains(verbs, "list") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return ns
}

func tokenOf(user string) string {
	if user == "leaser" {
		return leaserToken
	}
	return otherToken
}

// clientFor returns a clientset of token's user; wrap, if not nil, wraps
// its transport.
func clientFor(t *testing.T, s *apiServer, token string, wrap func(http.RoundTripper) http.RoundTripper) *kubernetes.Clientset {
	t.Helper()
	cfg := s.Config(s.Host, token)
	cfg.WrapTransport = wrap
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLeastPrivilege: with a Role of get, list, create and update on
// leases, a lease claims, renews, issues and releases; the objects show
// the holder, its mark and TTL. Without any one of the verbs, the first
// request that needs it fails with an error naming the verb.
func TestLeastPrivilege(t *testing.T) {
	s := shared(t)
	ctx := context.Background()
	ns := grant(t, s, "leaser", leaseVerbs)
	c := clientFor(t, s, leaserToken, nil)
	l, err := node.NewLease(ctx, NewStore(c.CoordinationV1(), StoreOptions{Namespace: ns}), node.LeaseOptions{TTL: time.Second, Owner: "pod-a-1"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := node.NewSnowflake(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		if _, err := g.Next(); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(1500 * time.Millisecond) // renewals
	if st := l.Stats(); st.Renewals < 2 || st.Failures != 0 {
		t.Fatalf("renewals: %+v", st)
	}
	admin := s.Client().CoordinationV1().Leases(ns)
	o, err := admin.Get(ctx, "idkit-node-"+strconv.FormatInt(l.Node(), 10), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The lease records its Owner label with a random suffix.
	if holderOf(o) != l.Stats().Owner || !strings.HasPrefix(holderOf(o), "pod-a-1-") || o.Labels[labelKey] != defaultPrefix || o.Annotations[annTTL] != strconv.FormatInt(int64(time.Second), 10) {
		t.Fatalf("object: holder %q, labels %v, annotations %v", holderOf(o), o.Labels, o.Annotations)
	}
	mark, err := annInt(o, annMark)
	if err != nil || mark < time.Now().UnixNano() {
		t.Fatalf("mark %d (%v), want after now", mark, err)
	}
	if _, err := admin.Get(ctx, "idkit-node-identity", metav1.GetOptions{}); err != nil {
		t.Fatalf("identity: %v", err)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if o, err = admin.Get(ctx, o.Name, metav1.GetOptions{}); err != nil || holderOf(o) != "" {
		t.Fatalf("after close: holder %q, %v", holderOf(o), err)
	}

	for _, missing := range leaseVerbs {
		t.Run("without "+missing, func(t *testing.T) {
			var verbs []string
			for _, v := range leaseVerbs {
				if v != missing {
					verbs = append(verbs, v)
				}
			}
			ns := grant(t, s, "other", verbs)
			admin := s.Client().CoordinationV1().Leases(ns)
			// A holder of the cluster admin first, so that the other's
			// claim needs no write to the identity object.
			first, err := node.NewLease(ctx, NewStore(s.Client().CoordinationV1(), StoreOptions{Namespace: ns}), node.LeaseOptions{TTL: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = first.Close(ctx) })
			var logs syncBuffer
			c := clientFor(t, s, otherToken, nil)
			l, err := node.NewLease(ctx, NewStore(c.CoordinationV1(), StoreOptions{Namespace: ns}), node.LeaseOptions{TTL: time.Second, Owner: "pod-b",
				Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			var msg string
			if err == nil {
				t.Cleanup(func() { _ = l.Close(ctx) })
				// A renewal that finds its object changed reads it (get).
				o, err := admin.Get(ctx, "idkit-node-"+strconv.FormatInt(l.Node(), 10), metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				o.Annotations["example.com/touched"] = "1"
				if _, err := admin.Update(ctx, o, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Second)
				msg = logs.String()
			} else {
				msg = err.Error()
			}
			want := `the verb \"` + missing + `\"`
			if err != nil {
				want = `the verb "` + missing + `"`
			}
			if !strings.Contains(msg, want) {
				t.Fatalf("without %s: %q does not say %s", missing, msg, want)
			}
			t.Logf("without %s: %s", missing, msg)
		})
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

package kubelease

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/idkit-go/idkit/generator/node"
)

// forbidFirst answers 403, as an API server whose RBAC is not ready yet
// does just after a restart, to every request for the first d.
type forbidFirst struct {
	next  http.RoundTripper
	until atomic.Int64 // Unix ns
	n     atomic.Int64
}

func (f *forbidFirst) RoundTrip(r *http.Request) (*http.Response, error) {
	if time.Now().UnixNano() < f.until.Load() {
		f.n.Add(1)
		body := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"leases.coordination.k8s.io is forbidden: User \"leaser\" cannot list resource \"leases\" in API group \"coordination.k8s.io\"","reason":"Forbidden","code":403}`
		return &http.Response{StatusCode: http.StatusForbidden, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	}
	return f.next.RoundTrip(r)
}

// Just after an API server restart its RBAC answers 403 for a while to a
// Role that has every verb: a claim made then waits it out and succeeds,
// instead of telling the user to add the "list" verb the Role has. A
// forbidden answer that outlasts the claim's context says both causes.
func TestForbiddenWhileRBACStarts(t *testing.T) {
	s := shared(t)
	ns := grant(t, s, "leaser", leaseVerbs)
	const notReady = 1500 * time.Millisecond
	f := &forbidFirst{}
	f.until.Store(time.Now().Add(notReady).UnixNano())
	c := clientFor(t, s, leaserToken, func(rt http.RoundTripper) http.RoundTripper { f.next = rt; return f })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	l, err := node.NewLease(ctx, NewStore(c.CoordinationV1(), StoreOptions{Namespace: ns}), node.LeaseOptions{TTL: time.Second})
	if err != nil {
		t.Fatalf("claim after %v, %d answers 403: %v", time.Since(start).Round(time.Millisecond), f.n.Load(), err)
	}
	if f.n.Load() == 0 {
		t.Fatal("no request was answered 403")
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}

	f.until.Store(time.Now().Add(time.Minute).UnixNano())
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = node.NewLease(short, NewStore(c.CoordinationV1(), StoreOptions{Namespace: ns, Prefix: "other"}), node.LeaseOptions{TTL: time.Second})
	if err == nil || !strings.Contains(err.Error(), "RBAC is not ready") || !strings.Contains(err.Error(), `lacks the verb "list"`) {
		t.Fatalf("a 403 until the claim's context ended: %v, want both causes named", err)
	}
}

// client-go's fake clientset sets no resourceVersion and enforces none:
// the store cannot prove a renewal on it, and says the fake is not
// supported and what to run instead.
func TestFakeClientset(t *testing.T) {
	c := fake.NewClientset()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := node.NewLease(ctx, NewStore(c.CoordinationV1(), StoreOptions{Namespace: "default"}), node.LeaseOptions{})
	if err == nil {
		l.Close(ctx)
		t.Fatal("a lease on the fake clientset")
	}
	for _, want := range []string{"fake", "not supported", "kind", "k3d", "envtest"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the claim ran until its context ended: %v", err)
	}
}

package kubelease

import (
	"context"
	"errors"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// forbiddenFor bounds how long a request answered "forbidden" is tried
// again. An API server that just started answers 403 to requests its
// authorizer cannot yet decide (its RBAC informers have not synced), for
// a few seconds; a Role that lacks the verb answers 403 for good. A 403
// is decided before the request is run, so sending it again is safe.
const forbiddenFor = 5 * time.Second

// stillForbidden wraps a 403 answered throughout a request's retries: err
// is the last answer, and full whether they lasted forbiddenFor (else the
// request's context ended first).
type stillForbidden struct {
	err    error
	waited time.Duration
	full   bool
}

func (e *stillForbidden) Error() string { return e.err.Error() }
func (e *stillForbidden) Unwrap() error { return e.err }

// authorized is the LeaseInterface the store uses: its Get, List, Create
// and Update try a forbidden request again, for at most forbiddenFor or
// until ctx ends.
type authorized struct{ coordv1.LeaseInterface }

func retryForbidden[T any](ctx context.Context, f func() (T, error)) (T, error) {
	start := time.Now()
	for pause := 50 * time.Millisecond; ; pause = min(2*pause, time.Second) {
		v, err := f()
		if err == nil || !apierrors.IsForbidden(err) {
			return v, err
		}
		waited := time.Since(start)
		if waited+pause > forbiddenFor {
			return v, &stillForbidden{err: err, waited: waited, full: true}
		}
		select {
		case <-ctx.Done():
			return v, &stillForbidden{err: err, waited: waited}
		case <-time.After(pause):
		}
	}
}

func (a authorized) Get(ctx context.Context, name string, o metav1.GetOptions) (*coordinationv1.Lease, error) {
	return retryForbidden(ctx, func() (*coordinationv1.Lease, error) { return a.LeaseInterface.Get(ctx, name, o) })
}

func (a authorized) List(ctx context.Context, o metav1.ListOptions) (*coordinationv1.LeaseList, error) {
	return retryForbidden(ctx, func() (*coordinationv1.LeaseList, error) { return a.LeaseInterface.List(ctx, o) })
}

func (a authorized) Create(ctx context.Context, l *coordinationv1.Lease, o metav1.CreateOptions) (*coordinationv1.Lease, error) {
	return retryForbidden(ctx, func() (*coordinationv1.Lease, error) { return a.LeaseInterface.Create(ctx, l, o) })
}

func (a authorized) Update(ctx context.Context, l *coordinationv1.Lease, o metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	return retryForbidden(ctx, func() (*coordinationv1.Lease, error) { return a.LeaseInterface.Update(ctx, l, o) })
}

// forbidden is the error of verb on object what answered "forbidden":
// persistent for forbiddenFor, a Role without the verb; cut short by the
// request's context, that or an API server whose RBAC is not ready yet.
func (s *store) forbidden(op, verb, what string, err error) error {
	rule := fmt.Sprintf("the Role's rule for leases (apiGroups: [coordination.k8s.io]) lacks the verb %q", verb)
	var sf *stillForbidden
	if errors.As(err, &sf) && sf.full {
		return fmt.Errorf("kubelease: %s: %s leases.coordination.k8s.io %q in namespace %s is forbidden (for %v): %s, or the RoleBinding does not name this service account: %w",
			op, verb, what, s.ns, sf.waited.Round(100*time.Millisecond), rule, err)
	}
	return fmt.Errorf("kubelease: %s: %s leases.coordination.k8s.io %q in namespace %s is forbidden until the request ended: either the API server's RBAC is not ready yet (it answers 403 for a few seconds after a restart; the next request tries again), or %s: %w",
		op, verb, what, s.ns, rule, err)
}

// errNotRevision is the error of a resourceVersion that is not an integer.
func errNotRevision(what, rv string) error {
	return fmt.Errorf("kubelease: %s has resourceVersion %q, not an integer: the store proves that nobody else wrote a Lease by its resourceVersion, which a real API server sets from etcd's revision; client-go's fake clientset (k8s.io/client-go/kubernetes/fake) neither sets nor enforces it, and is not supported: test against a real API server (kind, k3d or envtest)", what, rv)
}

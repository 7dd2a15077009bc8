package kubelease

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/idkit-go/idkit/generator/node"
)

// podHerd is what one herd of claimers, each with a store and a client of
// its own, measured.
type podHerd struct {
	n             int
	all, p50, p99 time.Duration
	unclaimed     int
	lapsed        int // leases no longer trusted at the end
	errs          int64
	firstErr      error
	status        map[int]int // answers by HTTP status, over every client
	requests      int
}

func (h podHerd) String() string {
	s := fmt.Sprintf("%d stores: all held after %v, p50 %v, p99 %v, %d unclaimed at the deadline, %d lapsed by then, %d failed claims retried; %d requests, by status %v",
		h.n, h.all.Round(time.Millisecond), h.p50.Round(time.Millisecond), h.p99.Round(time.Millisecond), h.unclaimed, h.lapsed, h.errs, h.requests, h.status)
	if h.firstErr != nil {
		s += fmt.Sprintf(" (first error: %v)", h.firstErr)
	}
	return s
}

// ownClient returns a clientset with a transport of its own (a dial
// function keeps client-go from sharing its cached transport), as a pod
// has, counting answers by status in st.
func ownClient(t testing.TB, s *apiServer, st *statuses) *kubernetes.Clientset {
	cfg := s.Config(s.Host, leaserToken)
	cfg.Timeout = 0 // the claims' own contexts bound them
	d := &net.Dialer{Timeout: 10 * time.Second}
	cfg.Dial = d.DialContext
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return &statusCount{rt: rt, st: st} }
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// statusCount counts one client's answers in a shared statuses.
type statusCount struct {
	rt http.RoundTripper
	st *statuses
}

func (s *statusCount) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.rt.RoundTrip(r)
	if err == nil {
		s.st.mu.Lock()
		s.st.n[resp.StatusCode]++
		s.st.mu.Unlock()
	}
	return resp, err
}

// storeHerd starts n pods at once in namespace ns, each with a store and
// a client of its own calling node.NewLease, retrying a failed call until
// limit (a pod whose claim fails is restarted). It closes the leases
// before it returns, and fails t if two pods hold one node.
func storeHerd(t *testing.T, s *apiServer, ns string, n int, limit time.Duration) podHerd {
	t.Helper()
	st := &statuses{n: map[int]int{}}
	stores := make([]node.Store, n)
	for i := range stores {
		stores[i] = NewStore(ownClient(t, s, st).CoordinationV1(), StoreOptions{Namespace: ns})
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	leases := make([]*node.Lease, n)
	took := make([]time.Duration, n)
	var errs atomic.Int64
	var firstErr atomic.Value
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			t0 := time.Now()
			for ctx.Err() == nil {
				l, err := node.NewLease(ctx, stores[i], node.LeaseOptions{TTL: 10 * time.Second})
				if err == nil {
					leases[i], took[i] = l, time.Since(t0)
					return
				}
				if ctx.Err() == nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err)
					time.Sleep(100 * time.Millisecond)
				}
			}
		})
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	h := podHerd{n: n, all: time.Since(t0), errs: errs.Load()}
	if e, ok := firstErr.Load().(error); ok {
		h.firstErr = e
	}
	held := map[int64]bool{}
	var lat []time.Duration
	for i, l := range leases {
		if l == nil {
			h.unclaimed++
			continue
		}
		lat = append(lat, took[i])
		// A lease that lapsed while the herd ran still reports its node,
		// which another may hold now: only trusted leases count.
		if l.Fence() != nil {
			h.lapsed++
			continue
		}
		if held[l.Node()] {
			t.Errorf("node %d held by two trusted leases", l.Node())
		}
		held[l.Node()] = true
	}
	slices.Sort(lat)
	if len(lat) > 0 {
		h.p50, h.p99, h.all = lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1]
	}
	st.mu.Lock()
	h.status = maps(st.n)
	for _, c := range st.n {
		h.requests += c
	}
	st.mu.Unlock()
	var cw sync.WaitGroup
	for _, l := range leases {
		if l != nil {
			cw.Go(func() { _ = l.Close(context.Background()) })
		}
	}
	cw.Wait()
	return h
}

func maps(m map[int]int) map[int]int {
	c := make(map[int]int, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// plainCreates times n clients of their own creating one plain Lease each
// at once: the API server's own write rate, to read beside a herd's.
func plainCreates(t *testing.T, s *apiServer, ns string, n int) (time.Duration, map[int]int) {
	st := &statuses{n: map[int]int{}}
	cs := make([]*kubernetes.Clientset, n)
	for i := range cs {
		cs[i] = ownClient(t, s, st)
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			_, _ = cs[i].CoordinationV1().Leases(ns).Create(context.Background(), &coordinationv1.Lease{
				ObjectMeta: metav1.ObjectMeta{Name: "plain-" + strconv.Itoa(i)}}, metav1.CreateOptions{})
		})
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	return time.Since(t0), maps(st.n)
}

// TestHerdStores: pods start at once, each with a store and a client of
// its own (a Deployment scaling out), on a new namespace: every pod holds
// a node within 10 s, and the claims spread instead of colliding: at
// most n/2 conflicts (409) in all. 100 pods by default, in a namespace
// whose identity object exists (a Deployment scaling out), so that the
// conflicts counted are the nodes'; IDKIT_HERD=1 runs IDKIT_HERD_N
// (default 1,000) in a new namespace and logs as many plain Lease
// creates at once beside it.
func TestHerdStores(t *testing.T) {
	if testing.Short() {
		t.Skip("claims at once")
	}
	s := shared(t)
	n := 100
	if os.Getenv("IDKIT_HERD") != "" {
		n = 1000
		if v, err := strconv.Atoi(os.Getenv("IDKIT_HERD_N")); err == nil && v > 0 {
			n = v
		}
	}
	ns := grant(t, s, "leaser", leaseVerbs)
	if os.Getenv("IDKIT_HERD") == "" {
		// The namespace of a Deployment that ran before: its identity
		// object exists, so the conflicts counted are the nodes'.
		l, err := node.NewLease(context.Background(), NewStore(s.Client().CoordinationV1(), StoreOptions{Namespace: ns}), node.LeaseOptions{TTL: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	h := storeHerd(t, s, ns, n, 60*time.Second)
	t.Logf("%v", h)
	if os.Getenv("IDKIT_HERD") != "" {
		d, st := plainCreates(t, s, grant(t, s, "leaser", leaseVerbs), n)
		t.Logf("%d plain Lease creates at once, each client its own: %v, by status %v", n, d.Round(time.Millisecond), st)
	}
	if h.unclaimed > 0 || h.all > 10*time.Second {
		t.Errorf("not every pod held a node within 10 s: %v", h)
	}
	if c := h.status[http.StatusConflict]; c > n/2 {
		t.Errorf("%d conflicts for %d claims: claims collide instead of spreading", c, n)
	}
}

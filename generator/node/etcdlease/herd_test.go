package etcdlease_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/etcdlease"
)

// TestHerd: 1,000 leases claim at once through one store, as a process
// starting a fleet would; each gets a node of its own.
// Without the race detector, the claims' p99 stays at or below 1 s in at
// least one of three herds (the members share the test's CPU, which other
// processes may be using); with it, 200 claim and the p99 is only logged.
func TestHerd(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 claims")
	}
	c := shared(t).client(t)
	if raceEnabled {
		// The detector slows the members several times over: 1,000
		// claims, then their renewals, would outrun them.
		p99 := herd(t, c, 200)
		t.Logf("race detector on: 200 claims, p99 %v not checked", p99)
		return
	}
	var p99s []time.Duration
	for run := range 3 {
		p99 := herd(t, c, 1000)
		p99s = append(p99s, p99)
		if p99 <= time.Second {
			return
		}
		t.Logf("herd %d: p99 %v above 1 s", run+1, p99)
	}
	t.Errorf("the p99 of 1,000 claims at once was above 1 s in every herd: %v", p99s)
}

// herd runs n node.NewLease at once on one store of a prefix of its own,
// checks that they took n distinct nodes, closes them and returns the p99 of
// the claims' latency.
func herd(t *testing.T, c *clientv3.Client, n int) time.Duration {
	t.Helper()
	s := etcdlease.NewStore(c, etcdlease.StoreOptions{Prefix: prefix(t)})
	ctx := context.Background()
	leases := make([]*node.Lease, n)
	took := make([]time.Duration, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			t0 := time.Now()
			leases[i], errs[i] = node.NewLease(ctx, s, node.LeaseOptions{})
			took[i] = time.Since(t0)
		})
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	all := time.Since(t0)
	defer func() {
		var wg sync.WaitGroup
		for i, l := range leases {
			if l != nil {
				wg.Go(func() {
					// Close gives up after its bound (1 s), which n releases at
					// once may pass on a busy machine; the lease then expires
					// after its TTL, as Close documents.
					if err := l.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
						errs[i] = err
					}
				})
			}
		}
		wg.Wait()
		require.NoError(t, errors.Join(errs...), "close")
	}()
	slices.Sort(took)
	p50, p99 := took[n/2], took[n*99/100]
	t.Logf("%d claims at once: p50 %v, p99 %v, max %v, all claimed after %v",
		n, p50.Round(time.Millisecond), p99.Round(time.Millisecond), took[n-1].Round(time.Millisecond), all.Round(time.Millisecond))
	nodes := make([]int64, 0, n)
	for i, l := range leases {
		require.NoError(t, errs[i])
		nodes = append(nodes, l.Node())
	}
	slices.Sort(nodes)
	require.Len(t, slices.Compact(nodes), n, "%d distinct nodes", n)
	return p99
}

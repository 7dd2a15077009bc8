package etcdlease_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/etcdlease"
)

// TestHerdStores: processes start at once, each with a store and a
// client of its own, on one prefix: every one holds a node within 10 s,
// and the claims spread instead of colliding: at most 2 transactions a
// claim (a claim is one, a collision adds one). 100 by default;
// IDKIT_HERD=1 runs IDKIT_HERD_N (default 1,000) and logs as many plain
// Puts at once, each client its own, beside it.
func TestHerdStores(t *testing.T) {
	if testing.Short() {
		t.Skip("claims at once")
	}
	cl := shared(t)
	n := 100
	if os.Getenv("IDKIT_HERD") != "" {
		n = 1000
		if v, err := strconv.Atoi(os.Getenv("IDKIT_HERD_N")); err == nil && v > 0 {
			n = v
		}
	}
	var txns atomic.Int64
	count := grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if method == "/etcdserverpb.KV/Txn" {
			txns.Add(1)
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	})
	client := func(i int) *clientv3.Client {
		c, err := clientv3.New(clientv3.Config{
			Endpoints:   []string{cl.endpoints[i%len(cl.endpoints)]},
			DialTimeout: 10 * time.Second,
			Logger:      zap.NewNop(),
			DialOptions: []grpc.DialOption{count},
		})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	p := prefix(t)
	clients := make([]*clientv3.Client, n)
	stores := make([]node.Store, n)
	for i := range stores {
		clients[i] = client(i)
		stores[i] = etcdlease.NewStore(clients[i], etcdlease.StoreOptions{Prefix: p})
	}
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	leases := make([]*node.Lease, n)
	took := make([]time.Duration, n)
	var errs atomic.Int64
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			t0 := time.Now()
			for ctx.Err() == nil {
				l, err := node.NewLease(ctx, stores[i], node.LeaseOptions{})
				if err == nil {
					leases[i], took[i] = l, time.Since(t0)
					return
				}
				if ctx.Err() == nil {
					errs.Add(1)
					t.Logf("claim: %v", err)
					time.Sleep(100 * time.Millisecond)
				}
			}
		})
	}
	close(start)
	wg.Wait()
	claimTxns := txns.Load()
	held := map[int64]bool{}
	var lat []time.Duration
	unclaimed := 0
	for i, l := range leases {
		if l == nil {
			unclaimed++
			continue
		}
		if held[l.Node()] {
			t.Errorf("node %d held twice", l.Node())
		}
		held[l.Node()] = true
		lat = append(lat, took[i])
	}
	slices.Sort(lat)
	var p50, p99, all time.Duration
	if len(lat) > 0 {
		p50, p99, all = lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1]
	}
	t.Logf("%d stores: all held after %v, p50 %v, p99 %v, %d unclaimed, %d failed claims retried; %d transactions (%.2f a claim)",
		n, all.Round(time.Millisecond), p50.Round(time.Millisecond), p99.Round(time.Millisecond), unclaimed, errs.Load(), claimTxns, float64(claimTxns)/float64(n))
	var cw sync.WaitGroup
	for _, l := range leases {
		if l != nil {
			cw.Go(func() { _ = l.Close(context.Background()) })
		}
	}
	cw.Wait()
	if os.Getenv("IDKIT_HERD") != "" {
		pc := make([]*clientv3.Client, n)
		for i := range pc {
			pc[i] = client(i)
			defer pc[i].Close()
		}
		var failed atomic.Int64
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				if _, err := pc[i].Put(context.Background(), p+"plain/"+strconv.Itoa(i), "x"); err != nil {
					failed.Add(1)
				}
			})
		}
		t0 := time.Now()
		close(start)
		wg.Wait()
		t.Logf("%d plain Puts at once, each client its own: %v (%d failed)", n, time.Since(t0).Round(time.Millisecond), failed.Load())
	}
	if unclaimed > 0 || all > 10*time.Second {
		t.Errorf("not every store held a node within 10 s")
	}
	if float64(claimTxns) > 2*float64(n) {
		t.Errorf("%d transactions for %d claims: claims collide instead of spreading", claimTxns, n)
	}
}

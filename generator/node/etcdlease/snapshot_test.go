package etcdlease_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/etcdlease"
)

// issuingAgain reports whether f's lease is trusted, renewed after since,
// and issued an ID after that renewal.
func (f *flat) issuingAgain(since time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.l == nil || f.l.Fence() != nil {
		return false
	}
	r := f.l.Stats().LastRenewal
	return r.After(since) && f.last.After(r)
}

// waitIssuing waits until every holder issues again after since, or
// limit passes, and returns how long each took (0 for those that did not).
func waitIssuing(since time.Time, limit time.Duration, hs ...*flat) []time.Duration {
	took := make([]time.Duration, len(hs))
	deadline := since.Add(limit)
	for left := len(hs); left > 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for i, h := range hs {
			if took[i] == 0 && h.issuingAgain(since) {
				took[i], left = time.Since(since), left-1
			}
		}
	}
	return took
}

// TestSnapshotRestoreWithoutBump: holders A and C issue; a snapshot is
// saved; their renewals move their marks past it, and 2,000 writes of
// other users the revision; the
// member is restored from the snapshot with etcdutl snapshot restore and
// its defaults (no --bump-revision: the revision goes back; the same
// token: the cluster ID stays). Each holder must notice at its next
// renewal, heal by a claim after a loss, and issue again within
// RenewEvery + the horizon (docs/leases.md, Restores), plus slack for a
// busy machine; B, started after, and A and C repeat no ID.
func TestSnapshotRestoreWithoutBump(t *testing.T) {
	faults(t)
	etcdutl(t) // built before the clock starts
	m := startMember(t)
	o := faultOptions()
	a := issue(etcdlease.NewStore(m.clientVia(t, nil), etcdlease.StoreOptions{Prefix: conformancePrefix}), o)
	c := issue(etcdlease.NewStore(m.clientVia(t, nil), etcdlease.StoreOptions{Prefix: conformancePrefix}), o)
	a.started(t, 10*time.Second)
	c.started(t, 10*time.Second)
	snap := saveSnapshot(t, m.clientVia(t, nil))
	renewedSince(t, a, o)
	renewedSince(t, c, o)
	otherWrites(t, m.clientVia(t, nil))
	down := m.restoreSnapshot(t, snap, "idkit-etcdlease-conformance")
	up := time.Now()
	t.Logf("the member was down %v for the restore", down.Round(time.Millisecond))
	// RenewEvery (TTL/3) to the failing renewal, the horizon (TTL + unit
	// + MaxClockOffset, 2.5 s), a renewal after the heal (RenewEvery).
	bound := 2*o.TTL/3 + o.TTL + 500*time.Millisecond
	took := waitIssuing(up, bound+3*time.Second, a, c)
	stuck := 0
	for i, d := range took {
		if d == 0 {
			stuck++
		}
		t.Logf("holder %c: issuing again %v after the member came back (0: not in %v); %+v", "AC"[i], d.Round(time.Millisecond), bound+3*time.Second, []*flat{a, c}[i].l.Stats())
	}
	b := issue(etcdlease.NewStore(m.clientVia(t, nil), etcdlease.StoreOptions{Prefix: conformancePrefix}), o)
	b.started(t, 3*o.TTL)
	time.Sleep(o.TTL / 2)
	ia, ib, ic := a.halt(), b.halt(), c.halt()
	n := both(ia, ib) + both(ib, ic) + both(ia, ic)
	t.Logf("%d holders of 2 stuck; %d IDs from A, %d from B, %d from C; %d returned twice", stuck, len(ia), len(ib), len(ic), n)
	if stuck != 0 {
		t.Errorf("%d holders did not issue again within %v of the restore", stuck, bound+3*time.Second)
	}
	if n != 0 {
		t.Errorf("%d IDs returned by two holders", n)
	}
}

// TestSnapshotRestoreNewClusterMarkFails: a process's store S saw the
// cluster; a holder with TTL 6 s used the prefix (the horizon key keeps
// its horizon); a snapshot is saved; X and Y, holders of another process
// with TTL 6 s, claim nodes 0 and 1, and their link is cut (they trust
// their nodes until TTL - Margin after their last renewal); the member is
// restored from the snapshot under another cluster token, which gives a
// new cluster ID. B's claim on S finds the new cluster ID, and its mark
// transaction fails once; the claim after must still be a claim after a
// loss: B waits out X and Y and repeats none of their IDs.
func TestSnapshotRestoreNewClusterMarkFails(t *testing.T) {
	faults(t)
	etcdutl(t)
	m := startMember(t)
	ctx := context.Background()
	long := faultOptions()
	long.TTL = 6 * time.Second
	w, err := node.NewLease(ctx, etcdlease.NewStore(m.clientVia(t, nil), etcdlease.StoreOptions{Prefix: conformancePrefix}), long)
	require.NoError(t, err)
	require.NoError(t, w.Close(ctx))

	var armed atomic.Bool
	var failed atomic.Int32
	fail := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		// The mark transaction is the one that compares the restored key.
		if tr, ok := req.(*etcdserverpb.TxnRequest); ok && len(tr.Compare) > 0 &&
			string(tr.Compare[0].Key) == conformancePrefix+"restored" && armed.CompareAndSwap(true, false) {
			failed.Add(1)
			return errors.New("injected: the mark transaction failed")
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	cs, err := clientv3.New(clientv3.Config{Endpoints: []string{m.client.Host}, DialTimeout: 2 * time.Second, Logger: zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithUnaryInterceptor(fail)}})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	s := etcdlease.NewStore(cs, etcdlease.StoreOptions{Prefix: conformancePrefix})
	l, err := node.NewLease(ctx, s, faultOptions())
	require.NoError(t, err)
	require.NoError(t, l.Close(ctx))

	snap := saveSnapshot(t, m.clientVia(t, nil))
	px := &path{target: m.client.Host}
	cx, err := clientv3.New(clientv3.Config{Endpoints: []string{m.client.Host}, DialTimeout: 2 * time.Second, Logger: zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithContextDialer(px.dial)}})
	require.NoError(t, err)
	t.Cleanup(func() { cx.Close() })
	sx := etcdlease.NewStore(cx, etcdlease.StoreOptions{Prefix: conformancePrefix})
	x := issue(sx, long)
	x.started(t, 2*long.TTL)
	y := issue(sx, long)
	y.started(t, 2*long.TTL)
	px.move("127.0.0.1:1") // cut: X and Y issue until TTL - Margin
	cut := time.Now()
	m.restoreSnapshot(t, snap, "idkit-etcdlease-restored")

	armed.Store(true)
	_, err = node.NewLease(ctx, s, faultOptions())
	require.Error(t, err, "the claim whose mark transaction failed")
	require.Equal(t, int32(1), failed.Load(), "the mark transaction failed once")
	t.Logf("the first claim: %v", err)
	b := issue(s, faultOptions())
	b.started(t, 3*long.TTL)
	t.Logf("B issued %v after the cut", time.Since(cut).Round(time.Millisecond))
	time.Sleep(max(long.TTL-time.Since(cut), long.TTL/4)) // past X's and Y's trust, and some IDs from B
	ib, ix, iy := b.halt(), x.halt(), y.halt()
	n := both(ib, ix) + both(ib, iy)
	t.Logf("%d IDs from B, %d from X, %d from Y; %d returned twice", len(ib), len(ix), len(iy), n)
	if n != 0 {
		t.Errorf("%d IDs returned by two holders", n)
	}
}

// otherWrites moves the revision on as a cluster's other users do: 2,000
// writes, which the holders' writes alone (a few a second) take minutes to
// make up after a restore that sets the revision back.
func otherWrites(t *testing.T, c *clientv3.Client) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 250 {
				if _, err := c.Put(context.Background(), fmt.Sprintf("other/%d/%d", g, i), "x"); err != nil {
					errs[g] = err
					return
				}
			}
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
}

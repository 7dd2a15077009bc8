package etcdlease_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/etcdlease"
)

// TestCorruptMarks: a holder's own mark key is given a value that is not a
// mark (which etcd's byte-wise comparison would never let a raise
// replace): its renewal fails as a loss naming the key, and it heals, its
// claim replacing the value and waiting the horizon. The store-wide mark
// and horizon keys corrupted fail a claim with node.ErrCorrupt naming the
// key, and the claim keeps no node; repaired, claims work again.
func TestCorruptMarks(t *testing.T) {
	t.Parallel()
	cl := shared(t)
	c := cl.client(t)
	p := prefix(t)
	ctx := context.Background()
	o := faultOptions()
	a := issue(etcdlease.NewStore(cl.client(t), etcdlease.StoreOptions{Prefix: p}), o)
	a.started(t, 10*time.Second)
	own := p + "h/" + strconv.FormatInt(a.l.Node(), 10)
	_, err := c.Put(ctx, own, "soon")
	require.NoError(t, err)
	// A fences at its next renewal (RenewEvery), waits the horizon (2.5 s)
	// and issues again; slack for a busy machine.
	deadline := time.Now().Add(5 * o.TTL)
	for a.l.Stats().Reclaims == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("A did not heal: %+v, %v", a.l.Stats(), a.l.Fence())
		}
		time.Sleep(10 * time.Millisecond)
	}
	a.mu.Lock()
	n := len(a.ids)
	a.mu.Unlock()
	for more := false; !more; {
		require.True(t, time.Now().Before(deadline.Add(2*o.TTL)), "A issued nothing after healing")
		time.Sleep(10 * time.Millisecond)
		a.mu.Lock()
		more = len(a.ids) > n
		a.mu.Unlock()
	}
	r, err := c.Get(ctx, own)
	require.NoError(t, err)
	require.Len(t, r.Kvs, 1)
	require.Len(t, string(r.Kvs[0].Value), 19, "the mark replaced")
	ids := a.halt()
	slices.Sort(ids)
	require.Equal(t, len(ids), len(slices.Compact(ids)), "an ID issued twice")

	for _, k := range []struct{ key, value string }{{p + "mark", "99999999999999999999"}, {p + "horizon", "ten"}} {
		old, err := c.Get(ctx, k.key)
		require.NoError(t, err)
		_, err = c.Put(ctx, k.key, k.value)
		require.NoError(t, err)
		_, err = node.NewLease(ctx, etcdlease.NewStore(c, etcdlease.StoreOptions{Prefix: p}), o)
		require.ErrorIs(t, err, node.ErrCorrupt)
		require.ErrorContains(t, err, "key "+k.key+" holds")
		held, err := c.Get(ctx, p+"o/", clientv3.WithPrefix())
		require.NoError(t, err)
		require.Zero(t, held.Count, "the refused claim kept no node")
		if len(old.Kvs) == 0 {
			_, err = c.Delete(ctx, k.key)
		} else {
			_, err = c.Put(ctx, k.key, string(old.Kvs[0].Value))
		}
		require.NoError(t, err)
		l, err := node.NewLease(ctx, etcdlease.NewStore(c, etcdlease.StoreOptions{Prefix: p}), o)
		require.NoError(t, err, "repaired")
		require.NoError(t, l.Close(ctx))
	}
}

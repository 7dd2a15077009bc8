package etcdlease_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/etcdlease"
)

func TestNilClient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := etcdlease.NewStore(nil, etcdlease.StoreOptions{})
	_, err := node.NewLease(ctx, s, node.LeaseOptions{})
	require.ErrorIs(t, err, generator.ErrInvalidConfig)
	require.ErrorIs(t, renewOn(ctx, s, 0, "a", time.Second, 1), generator.ErrInvalidConfig)
	require.ErrorIs(t, s.Release(ctx, node.Release{Node: 0, Owner: "a", Mark: 1, Exact: true}), generator.ErrInvalidConfig)
}

// claimOn claims on s as a lease with no loss to report, whose horizon is
// its TTL.
func claimOn(ctx context.Context, s node.Store, owner string, ttl time.Duration, maxNode, prefer, bound int64) (int64, int64, error) {
	r, err := s.Claim(ctx, node.Claim{Owner: owner, TTL: ttl, MaxNode: maxNode, Prefer: prefer, Bound: bound, Horizon: ttl})
	return r.Node, r.Floor, err
}

// renewOn renews on s as a lease that saw nothing yet.
func renewOn(ctx context.Context, s node.Store, n int64, owner string, ttl time.Duration, bound int64) error {
	_, err := s.Renew(ctx, node.Renewal{Node: n, Owner: owner, TTL: ttl, Bound: bound, Horizon: ttl})
	return err
}

// getMark reads node n's high-water mark key.
func getMark(t *testing.T, c *clientv3.Client, p string, n int64) int64 {
	t.Helper()
	r, err := c.Get(context.Background(), p+"h/"+strconv.FormatInt(n, 10))
	require.NoError(t, err)
	require.Len(t, r.Kvs, 1)
	m, err := strconv.ParseInt(string(r.Kvs[0].Value), 10, 64)
	require.NoError(t, err)
	return m
}

// TestNewLease claims, issues and releases through the store, checking
// the keys: the owner key under an etcd lease while held and gone after
// Close, the mark covering the last ID after it.
func TestNewLease(t *testing.T) {
	t.Parallel()
	c := shared(t).client(t)
	ctx := context.Background()
	p := prefix(t)

	l, err := node.NewLease(ctx, etcdlease.NewStore(c, etcdlease.StoreOptions{Prefix: p}), node.LeaseOptions{TTL: 5 * time.Second})
	require.NoError(t, err)
	n := l.Node()
	owner := p + "o/" + strconv.FormatInt(n, 10)
	r, err := c.Get(ctx, owner)
	require.NoError(t, err)
	require.Len(t, r.Kvs, 1)
	require.Equal(t, l.Stats().Owner, string(r.Kvs[0].Value))
	ttl, err := c.TimeToLive(ctx, clientv3.LeaseID(r.Kvs[0].Lease))
	require.NoError(t, err)
	require.Equal(t, int64(5), ttl.GrantedTTL, "the claim's etcd lease has the lease's TTL")

	g, err := node.NewSnowflake(ctx, l)
	require.NoError(t, err)
	id, err := g.Next()
	require.NoError(t, err)
	parts, err := generator.Twitter().Decompose(id)
	require.NoError(t, err)
	require.Equal(t, n, parts.Node)
	require.GreaterOrEqual(t, getMark(t, c, p, n), parts.Time.UnixNano(), "the claim's mark covers the ID")

	require.NoError(t, l.Close(ctx))
	r, err = c.Get(ctx, owner)
	require.NoError(t, err)
	require.Empty(t, r.Kvs, "released")
	require.GreaterOrEqual(t, getMark(t, c, p, n), parts.Time.UnixNano(), "the mark covers the last ID")
	ttl, err = c.TimeToLive(ctx, ttl.ID)
	require.NoError(t, err)
	require.Equal(t, int64(-1), ttl.TTL, "the release revoked the claim's etcd lease")
}

// TestStoreClaimSpread: the store takes the preferred node when it is
// free; otherwise, with no preference, a held preference or one out of
// range, a free node at random, never a held one, so that the first
// claims of many processes at once spread instead of all trying node 0
// (the contract allows any free node; the protocol cases of package
// nodetest, TestProtocol, check the rest of a claim).
func TestStoreClaimSpread(t *testing.T) {
	t.Parallel()
	const ttl, maxNode = time.Minute, 7
	s := etcdlease.NewStore(shared(t).client(t), etcdlease.StoreOptions{Prefix: prefix(t)})
	claim := func(s node.Store, owner string, maxNode, prefer int64) int64 {
		t.Helper()
		n, _, err := claimOn(context.Background(), s, owner, ttl, maxNode, prefer, 1)
		require.NoError(t, err)
		return n
	}
	held := map[int64]bool{}
	take := func(owner string, prefer int64) int64 {
		t.Helper()
		n := claim(s, owner, maxNode, prefer)
		require.False(t, held[n], "node %d taken twice", n)
		require.True(t, n >= 0 && n <= maxNode, "node %d out of range", n)
		held[n] = true
		return n
	}
	a := take("a", -1)
	b := int64(5)
	if a == b {
		b = 6
	}
	require.Equal(t, b, take("b", b), "a free preferred node")
	take("c", b)         // held by another: another free node
	take("d", maxNode+3) // out of range: a free node
	for _, o := range []string{"e", "f", "g", "h"} {
		take(o, -1)
	}
	_, _, err := claimOn(context.Background(), s, "i", ttl, maxNode, -1, 1)
	require.ErrorIs(t, err, node.ErrExhausted, "every node held")

	// 20 first claims on 1,024 nodes: at random, not the lowest 20.
	s = etcdlease.NewStore(shared(t).client(t), etcdlease.StoreOptions{Prefix: prefix(t)})
	var nodes []int64
	for i := range 20 {
		nodes = append(nodes, claim(s, fmt.Sprint("o", i), 1023, -1))
	}
	slices.Sort(nodes)
	require.Greater(t, nodes[19], int64(19), "claims without a preference took the lowest nodes %v", nodes)
}

// TestStoreRenewLongerTTL: a renewal asking for a longer TTL than the
// claim's moves the owner key to an etcd lease that long.
func TestStoreRenewLongerTTL(t *testing.T) {
	t.Parallel()
	c := shared(t).client(t)
	p := prefix(t)
	s := etcdlease.NewStore(c, etcdlease.StoreOptions{Prefix: p})
	ctx := context.Background()
	n, _, err := claimOn(ctx, s, "a", 3*time.Second, 7, -1, 1)
	require.NoError(t, err)
	grant := func() (clientv3.LeaseID, int64) {
		r, err := c.Get(ctx, p+"o/"+strconv.FormatInt(n, 10))
		require.NoError(t, err)
		require.Len(t, r.Kvs, 1)
		ttl, err := c.TimeToLive(ctx, clientv3.LeaseID(r.Kvs[0].Lease))
		require.NoError(t, err)
		return ttl.ID, ttl.GrantedTTL
	}
	id, secs := grant()
	require.Equal(t, int64(3), secs)
	require.NoError(t, renewOn(ctx, s, n, "a", 2500*time.Millisecond, 5))
	id2, secs := grant()
	require.Equal(t, id, id2, "a renewal within the claim's TTL keeps its etcd lease")
	require.Equal(t, int64(3), secs)
	require.NoError(t, renewOn(ctx, s, n, "a", 7*time.Second, 6))
	id2, secs = grant()
	require.NotEqual(t, id, id2)
	require.Equal(t, int64(7), secs)
	require.Equal(t, int64(6), getMark(t, c, p, n))
	old, err := c.TimeToLive(ctx, id)
	require.NoError(t, err)
	require.Equal(t, int64(-1), old.TTL, "the old etcd lease was revoked")
}

// TestHealAfterRevoke: when the claim's etcd lease goes (revoked here, as
// etcd does at expiry), the renewal finds the node lost, and the lease
// heals by a new claim: its generator issues again, after every ID it
// issued before.
func TestHealAfterRevoke(t *testing.T) {
	t.Parallel()
	c := shared(t).client(t)
	p := prefix(t)
	ctx := context.Background()
	l, err := node.NewLease(ctx, etcdlease.NewStore(c, etcdlease.StoreOptions{Prefix: p}), node.LeaseOptions{TTL: 3 * time.Second})
	require.NoError(t, err)
	defer l.Close(ctx)
	g, err := node.NewSnowflake(ctx, l)
	require.NoError(t, err)
	before, err := g.Next()
	require.NoError(t, err)

	r, err := c.Get(ctx, p+"o/"+strconv.FormatInt(l.Node(), 10))
	require.NoError(t, err)
	require.Len(t, r.Kvs, 1)
	_, err = c.Revoke(ctx, clientv3.LeaseID(r.Kvs[0].Lease))
	require.NoError(t, err)

	// The next renewal, within RenewEvery (1 s), finds the node lost; the
	// heal claims at once.
	deadline := time.Now().Add(30 * time.Second)
	for l.Stats().Reclaims == 0 {
		require.True(t, time.Now().Before(deadline), "the lease never healed: %v", l.Fence())
		time.Sleep(20 * time.Millisecond)
	}
	after, err := g.Next()
	require.NoError(t, err)
	require.Greater(t, after, before)
	parts, err := generator.Twitter().Decompose(after)
	require.NoError(t, err)
	require.Equal(t, l.Node(), parts.Node)
}

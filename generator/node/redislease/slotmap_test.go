package redislease_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/redislease"
)

// TestClusterClaimsFollowTakeover: through a ClusterClient, a store whose
// claims wait for no replica (Replicas -1: the slot's replica was stopped
// from the start, and with the defaults a claim on a master that has had
// a replica and lost it is refused) claims again soon after the replica
// takes the slot over: the error of the first claim to reach the
// dead master reloads the slot map, so claims do not keep failing until
// go-redis's periodic reload.
func TestClusterClaimsFollowTakeover(t *testing.T) {
	s := startShard(t)
	s.detach(t)
	var addrs []string
	for _, n := range s.cluster.Nodes {
		addrs = append(addrs, n.Addr())
	}
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second})
	t.Cleanup(func() { c.Close() })
	st := redislease.NewStore(c, redislease.StoreOptions{Key: "leases", Replicas: -1})
	ctx := context.Background()
	o := faultOptions()
	l, err := node.NewLease(ctx, st, o)
	require.NoError(t, err)
	require.NoError(t, l.Close(ctx))
	s.takeover(t)
	took := time.Now()
	failed := 0
	for {
		l, err := node.NewLease(ctx, st, o)
		if err == nil {
			require.NoError(t, l.Close(ctx))
			break
		}
		failed++
		if time.Since(took) > 15*time.Second {
			t.Fatalf("claims still failing %v after the takeover (%d failed): %v", time.Since(took).Round(time.Millisecond), failed, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("a claim succeeded %v after the takeover, %d failed before", time.Since(took).Round(time.Millisecond), failed)
}

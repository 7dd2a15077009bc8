package redislease_test

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/internal/testdb"
)

// TestReplicasNone: on a server without replicas, Replicas 1 fails the
// claim with ErrNotReplicated, writing nothing; Replicas 0 and -1 claim.
func TestReplicasNone(t *testing.T) {
	t.Parallel()
	c := redis.NewClient(&redis.Options{Addr: testdb.RequireRedis(t)})
	defer c.Close()
	ctx := context.Background()
	if n := connectedReplicas(t, c); n != 0 {
		t.Skipf("the shared server has %d replicas", n)
	}
	key := testdb.Name("leases")
	t.Cleanup(func() { c.Del(context.Background(), key, "{"+key+"}:held", "{"+key+"}:free") })

	s := redislease.NewStore(c, redislease.StoreOptions{Key: key, Replicas: 1, ReplicaTimeout: 50 * time.Millisecond})
	_, err := node.NewLease(ctx, s, node.LeaseOptions{})
	require.ErrorIs(t, err, redislease.ErrNotReplicated)
	require.ErrorContains(t, err, "acknowledged by 0 of 1 replicas")
	n, err := c.Exists(ctx, key).Result()
	require.NoError(t, err)
	require.Zero(t, n, "the claim that could not be replicated wrote nothing")

	l, err := node.NewLease(ctx, redislease.NewStore(c, redislease.StoreOptions{Key: key}), node.LeaseOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(0), l.Node())
	require.NoError(t, l.Close(ctx))

	l, err = node.NewLease(ctx, redislease.NewStore(c, redislease.StoreOptions{Key: key, Replicas: -1}), node.LeaseOptions{})
	require.NoError(t, err, "Replicas -1 waits for none")
	require.NoError(t, l.Close(ctx))
}

// TestReplicasOne runs a primary and a replica of its own (never the
// shared server): with the replica up, claims and renewals pass; once it
// is gone, renewals fail with ErrNotReplicated and the lease expires.
func TestReplicasOne(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	primary := startRedis(t, bin)
	replica := startRedis(t, bin, "--replicaof", "127.0.0.1", strconv.Itoa(primary))
	ctx := context.Background()
	p := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(primary)})
	defer p.Close()
	r := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(replica)})
	defer r.Close()
	deadline := time.Now().Add(20 * time.Second)
	for connectedReplicas(t, p) != 1 || !strings.Contains(r.Info(ctx, "replication").Val(), "master_link_status:up") {
		require.True(t, time.Now().Before(deadline), "the replica never connected")
		time.Sleep(50 * time.Millisecond)
	}

	s := redislease.NewStore(p, redislease.StoreOptions{Key: "leases", Replicas: 1, ReplicaTimeout: time.Second})
	o := node.LeaseOptions{TTL: 2 * time.Second, RenewEvery: 100 * time.Millisecond, Margin: 500 * time.Millisecond}
	l, err := node.NewLease(ctx, s, o)
	require.NoError(t, err)
	defer l.Close(ctx)
	owner, err := r.HGet(ctx, "leases", "o:0").Result()
	require.NoError(t, err)
	require.Equal(t, l.Stats().Owner, owner, "the claim is on the replica")
	time.Sleep(3 * o.RenewEvery)
	require.NoError(t, l.Fence(), "renewed with the replica up")

	_ = r.Do(ctx, "SHUTDOWN", "NOSAVE").Err() // the reply is the connection closing
	for connectedReplicas(t, p) != 0 {
		require.True(t, time.Now().Before(deadline.Add(20*time.Second)), "the primary still counts the replica")
		time.Sleep(50 * time.Millisecond)
	}
	// Every renewal now falls short; the lease is trusted until TTL -
	// Margin (1.5 s) after the last good one. Slack: another TTL.
	limit := time.Now().Add(o.TTL - o.Margin + o.TTL)
	for l.Fence() == nil {
		require.True(t, time.Now().Before(limit), "still trusted without its replica")
		time.Sleep(10 * time.Millisecond)
	}
	require.ErrorIs(t, l.Fence(), node.ErrLeaseExpired)
	require.ErrorIs(t, l.Fence(), redislease.ErrNotReplicated)
}

// connectedReplicas returns the connected_slaves of c's server.
func connectedReplicas(t *testing.T, c *redis.Client) int {
	t.Helper()
	info, err := c.Info(context.Background(), "replication").Result()
	require.NoError(t, err)
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "connected_slaves:"); ok {
			n, err := strconv.Atoi(v)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no connected_slaves in INFO replication")
	return 0
}

// startRedis runs a throwaway redis-server on a free loopback port until
// t ends and returns the port.
func startRedis(t *testing.T, bin string, args ...string) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", t.TempDir()}, args...)...)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port)})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := c.Ping(context.Background()).Err()
		if err == nil {
			return port
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on port %d did not start: %v", port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

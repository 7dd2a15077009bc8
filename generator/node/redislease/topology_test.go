package redislease_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testservers"
)

// The topologies of issue 49's Redis rows: a master's replication ID and
// replica count as Redis really changes them (an RDB restart inside a
// split brain, a first replica attaching, a replica in its first sync).

// attach starts a replica of master through a proxy (cut to detach it).
func attach(t *testing.T, master *testservers.Redis, args ...string) (*testservers.Redis, *tcpproxy.Proxy) {
	t.Helper()
	link := tcpproxy.Start(t, master.Addr())
	_, port, _ := strings.Cut(link.Addr(), ":")
	return testservers.StartRedis(t, append([]string{"--replicaof", "127.0.0.1", port}, args...)...), link
}

// cut cuts link and waits until master no longer lists a replica.
func cut(t *testing.T, master *testservers.Redis, link *tcpproxy.Proxy) {
	t.Helper()
	link.Cut()
	deadline := time.Now().Add(10 * time.Second)
	for master.Info(t, "replication", "connected_slaves") != "0" {
		if time.Now().After(deadline) {
			t.Fatal("the master still lists its replica")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// issuedOrFailed waits until the holder issued an ID or its start failed,
// or fails t after limit.
func (f *flat) issuedOrFailed(t *testing.T, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		f.mu.Lock()
		n, err := len(f.ids), f.err
		f.mu.Unlock()
		if n > 0 || err != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("holder neither issued nor failed in %v", limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkRefusedOrNone halts a and b and checks that they returned no ID
// twice, and that a's start, if it failed, was refused for want of a
// replica with an error naming the count and the operator step.
func checkRefusedOrNone(t *testing.T, a, b *flat) {
	t.Helper()
	ia, ib := a.halt(), b.halt()
	n := both(ia, ib)
	t.Logf("%d IDs from A (start: %v), %d from B (start: %v), %d returned by both", len(ia), a.err, len(ib), b.err, n)
	if n != 0 {
		t.Errorf("%d IDs returned by both holders", n)
	}
	if len(ib) == 0 {
		t.Errorf("B issued nothing: %v", b.err)
	}
	if a.err != nil {
		if !errors.Is(a.err, redislease.ErrNotReplicated) {
			t.Errorf("A's start: %v, want ErrNotReplicated", a.err)
		}
		for _, s := range []string{"field rs", "HSET leases rs"} {
			if !strings.Contains(a.err.Error(), s) {
				t.Errorf("A's start: %v, does not name %q", a.err, s)
			}
		}
	}
}

// TestSplitBrainRestartedFromRDB (issue 49, row 12): the replica is
// promoted while the old master serves holder A; the old master then
// restarts from its RDB file, which gives it a new replication ID with the
// file's as master_replid2, as a promotion does. It must not pass for a
// promoted replica: its holders stay fenced and claims there are refused
// until it has the replica the hash saw, while B issues on the promoted
// replica.
func TestSplitBrainRestartedFromRDB(t *testing.T) {
	p := startPair(t)
	o := faultOptions()
	a := issue(storeVia(t, p.primary.Addr(), "leases", redislease.StoreOptions{}), o)
	a.started(t, 10*time.Second)
	time.Sleep(o.TTL / 4)
	p.replica.Do(t, "REPLICAOF", "NO", "ONE")
	p.primary.Do(t, "SAVE")
	p.primary.Restart(t) // loads dump.rdb
	require.NotEqual(t, "0000000000000000000000000000000000000000", p.primary.Info(t, "replication", "master_replid2"),
		"the restarted master keeps the file's replication ID as master_replid2")
	time.Sleep(o.TTL + o.TTL/4) // A's record expires on the promoted replica
	b := issue(storeVia(t, p.replica.Addr(), "leases", redislease.StoreOptions{}), o)
	b.started(t, 10*time.Second)
	time.Sleep(o.TTL)
	report(t, a, b)
	c := issue(storeVia(t, p.primary.Addr(), "leases", redislease.StoreOptions{}), o)
	c.halt()
	if c.err == nil {
		t.Errorf("a new process claimed on the restarted old master, which has none of the replica the hash saw")
	} else {
		require.ErrorIs(t, c.err, redislease.ErrNotReplicated)
		require.ErrorContains(t, c.err, "HSET leases rs")
	}
}

// TestSplitBrainHashNeverSawReplica (issue 49, row 13): a hash written on
// a master before its first replica attached (rs 0); the replica syncs,
// is cut off and promoted with no request in between; a new process A
// claims on the old master, B on the promoted replica. The first replica
// changed the master's replication ID and created its backlog, which A's
// claim must read as a replica the hash has had: A is refused.
func TestSplitBrainHashNeverSawReplica(t *testing.T) {
	primary := testservers.StartRedis(t)
	o := faultOptions()
	ctx := context.Background()
	w, err := node.NewLease(ctx, storeVia(t, primary.Addr(), "leases", redislease.StoreOptions{}), o)
	require.NoError(t, err)
	require.NoError(t, w.Close(ctx))
	replica, link := attach(t, primary)
	primary.WaitSynced(t, replica)
	cut(t, primary, link)
	replica.Do(t, "REPLICAOF", "NO", "ONE")
	a := issue(storeVia(t, primary.Addr(), "leases", redislease.StoreOptions{}), o)
	b := issue(storeVia(t, replica.Addr(), "leases", redislease.StoreOptions{}), o)
	b.started(t, 10*time.Second)
	time.Sleep(o.TTL)
	checkRefusedOrNone(t, a, b)
}

// TestFirstReplicaNoStall (issue 49, row 15): the first replica attached
// to a running master makes it take a new replication ID (Redis creates
// its backlog from scratch) but loses nothing: the holders issuing on it
// must not stop, neither while the replica syncs nor after.
func TestFirstReplicaNoStall(t *testing.T) {
	primary := testservers.StartRedis(t)
	o := faultOptions()
	var hs []*flat
	for range 2 {
		h := issue(storeVia(t, primary.Addr(), "leases", redislease.StoreOptions{}), o)
		h.started(t, 10*time.Second)
		hs = append(hs, h)
	}
	time.Sleep(o.TTL / 2)
	before := primary.Info(t, "replication", "master_replid")
	replica := testservers.StartRedis(t, "--replicaof", "127.0.0.1", strings.TrimPrefix(primary.Addr(), "127.0.0.1:"))
	primary.WaitSynced(t, replica)
	require.NotEqual(t, before, primary.Info(t, "replication", "master_replid"), "the first replica changes master_replid")
	time.Sleep(2 * o.TTL)
	for i, h := range hs {
		gap, st := h.longestGap(), h.l.Stats()
		h.halt()
		t.Logf("holder %d: longest time without an ID %v; %+v", i, gap, st)
		if gap > o.TTL/4 {
			t.Errorf("holder %d stopped issuing for %v", i, gap)
		}
		if st.Reclaims != 0 {
			t.Errorf("holder %d claimed again (%d times): a change of master_replid that lost nothing was taken for a loss", i, st.Reclaims)
		}
	}
}

// TestMixedTTLHorizonLost (issue 49, row 16): a holder with TTL 2 s wrote
// the hash before the master's first replica attached; the replica syncs
// (so it knows only the 2 s horizon) and is cut off; A, with TTL 6 s,
// claims on the master; the replica is promoted, the master dies, and B,
// with TTL 2 s, claims on it. A's claim must be refused (the master has
// had a replica it no longer has), or B must wait out A's horizon.
func TestMixedTTLHorizonLost(t *testing.T) {
	primary := testservers.StartRedis(t)
	ctx := context.Background()
	short, long := faultOptions(), faultOptions()
	long.TTL = 6 * time.Second
	w, err := node.NewLease(ctx, storeVia(t, primary.Addr(), "leases", redislease.StoreOptions{}), short)
	require.NoError(t, err)
	require.NoError(t, w.Close(ctx))
	replica, link := attach(t, primary)
	primary.WaitSynced(t, replica)
	cut(t, primary, link)
	a := issue(storeVia(t, primary.Addr(), "leases", redislease.StoreOptions{}), long)
	a.issuedOrFailed(t, 2*long.TTL)
	time.Sleep(long.TTL / 4)
	replica.Do(t, "REPLICAOF", "NO", "ONE")
	primary.Kill(t)
	b := issue(storeVia(t, replica.Addr(), "leases", redislease.StoreOptions{}), short)
	b.started(t, 2*long.TTL)
	time.Sleep(long.TTL)
	checkRefusedOrNone(t, a, b)
}

// TestSplitBrainReplicaInFirstSync (issue 49, row 17): holder A claims
// while the master's only replica is still in its first sync (Redis waits
// repl-diskless-sync-delay before sending it), so no request sees it
// online; the link is cut as soon as the sync is done and the replica is
// promoted. A must fence on the old master: the replica the master listed
// while it synced counts as one the hash has had.
func TestSplitBrainReplicaInFirstSync(t *testing.T) {
	primary := testservers.StartRedis(t, "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "3")
	o := faultOptions()
	replica, link := attach(t, primary)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(primary.Do(t, "INFO", "replication"), "slave0:") {
		require.True(t, time.Now().Before(deadline), "the replica never connected")
		time.Sleep(5 * time.Millisecond)
	}
	a := issue(storeVia(t, primary.Addr(), "leases", redislease.StoreOptions{}), o)
	a.started(t, 10*time.Second)
	require.NotContains(t, primary.Do(t, "INFO", "replication"), "state=online", "A claimed before the sync")
	for replica.Info(t, "replication", "master_link_status") != "up" {
		require.True(t, time.Now().Before(deadline), "the replica never synced")
		time.Sleep(time.Millisecond)
	}
	cut(t, primary, link)
	replica.Do(t, "REPLICAOF", "NO", "ONE")
	time.Sleep(o.TTL + o.TTL/4) // A's record expires on the promoted replica
	b := issue(storeVia(t, replica.Addr(), "leases", redislease.StoreOptions{}), o)
	b.started(t, 10*time.Second)
	time.Sleep(o.TTL)
	fences := a.l.Stats().Fences
	report(t, a, b)
	if fences == 0 {
		t.Errorf("A was never fenced on the old master")
	}
}

// TestPromotedKeepsHolders (issue 50, item 2): a failover that lost
// nothing (every renewal waited for the replica) promotes the replica,
// which has no replica of its own, and the old master dies. The holders,
// whose records the new master holds as they last saw them, keep their
// nodes with no claim and no wait, and a new process claims there.
func TestPromotedKeepsHolders(t *testing.T) {
	p := startPair(t)
	o := faultOptions()
	var hs []*flat
	var links []*tcpproxy.Proxy
	for range 2 {
		link := via(t, p.primary.Addr())
		h := issue(storeVia(t, link.Addr(), "leases", redislease.StoreOptions{}), o)
		h.started(t, 10*time.Second)
		hs, links = append(hs, h), append(links, link)
	}
	time.Sleep(o.TTL / 2)
	p.replica.Do(t, "REPLICAOF", "NO", "ONE")
	p.primary.Kill(t)
	for _, link := range links {
		require.NoError(t, link.MoveTo(p.replica.Addr()))
	}
	time.Sleep(2 * o.TTL)
	for i, h := range hs {
		gap, st := h.longestGap(), h.l.Stats()
		h.halt()
		t.Logf("holder %d: longest time without an ID %v; %+v", i, gap, st)
		if st.Reclaims != 0 {
			t.Errorf("holder %d claimed again (%d times) after a failover that lost nothing", i, st.Reclaims)
		}
		if gap > o.TTL/2 {
			t.Errorf("holder %d stopped issuing for %v", i, gap)
		}
	}
	c := issue(storeVia(t, p.replica.Addr(), "leases", redislease.StoreOptions{}), o)
	c.started(t, 10*time.Second)
	c.halt()
}

// TestRefusedClaimOutlastsReadTimeout: after a promotion, a store's first
// claim on the new master (which has no replica) waits for the replica
// its last claim needed; the script refuses (it writes nothing and counts
// none), but the WAIT pipelined after it holds the whole ReplicaTimeout
// (1 s), longer than the client's read timeout (200 ms). The claim must
// still run again with the replicas the script counted, not fail with the
// read's timeout: every later claim would fail alike.
func TestRefusedClaimOutlastsReadTimeout(t *testing.T) {
	p := startPair(t)
	link := via(t, p.primary.Addr())
	c := redis.NewClient(&redis.Options{Addr: link.Addr(), ReadTimeout: 200 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	s := redislease.NewStore(c, redislease.StoreOptions{Key: "leases", ReplicaTimeout: time.Second})
	ttl := 10 * time.Second
	claim := func(owner string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := s.Claim(ctx, node.Claim{Owner: owner, TTL: ttl, MaxNode: 7, Prefer: -1, Bound: time.Now().UnixNano(), Horizon: 2 * ttl})
		return err
	}
	require.NoError(t, claim("a"))
	p.replica.Do(t, "REPLICAOF", "NO", "ONE")
	p.primary.Kill(t)
	require.NoError(t, link.MoveTo(p.replica.Addr()))
	// The first claim may meet the pool's connection to the dead master.
	var err error
	for i := range 2 {
		start := time.Now()
		if err = claim("b"); err == nil {
			return
		}
		t.Logf("claim %d on the promoted replica: %v after %v", i, err, time.Since(start).Round(time.Millisecond))
	}
	t.Errorf("no claim succeeded on the promoted replica: %v", err)
}

// TestBackupClientNoStall: a backup taken with redis-cli --rdb syncs as a
// replica does (the master takes a new replication ID and creates its
// backlog) but announces no port and leaves: the holders on the master
// must not stop, nor count it as a replica they need afterwards.
func TestBackupClientNoStall(t *testing.T) {
	primary := testservers.StartRedis(t, "--repl-diskless-sync-delay", "1")
	// Renewals every 20 ms: the store tells a backup from a replica that
	// came and went only by a request that ran while it was connected
	// (docs/leases.md), and the backup's transfer may take milliseconds.
	o := faultOptions()
	o.RenewEvery = 20 * time.Millisecond
	h := issue(storeVia(t, primary.Addr(), "leases", redislease.StoreOptions{}), o)
	h.started(t, 10*time.Second)
	time.Sleep(o.TTL / 2)
	out, err := exec.Command("redis-cli", "-h", "127.0.0.1", "-p", strings.TrimPrefix(primary.Addr(), "127.0.0.1:"),
		"--rdb", filepath.Join(t.TempDir(), "backup.rdb")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "1", primary.Info(t, "replication", "repl_backlog_active"))
	time.Sleep(2 * o.TTL)
	gap, st := h.longestGap(), h.l.Stats()
	h.halt()
	t.Logf("longest time without an ID %v; %+v", gap, st)
	if gap > o.TTL/4 || st.Reclaims != 0 {
		t.Errorf("the holder stopped for %v (%d reclaims) over a backup", gap, st.Reclaims)
	}
	c := issue(storeVia(t, primary.Addr(), "leases", redislease.StoreOptions{}), o)
	c.started(t, 10*time.Second)
	c.halt()
}

package redislease_test

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testservers"
)

// pair is a Redis master and a replica that follows it through a proxy
// (cut to detach it), both of the test's own.
type pair struct {
	primary, replica *testservers.Redis
	link             *tcpproxy.Proxy
}

func startPair(t *testing.T) pair {
	t.Helper()
	if testing.Short() {
		t.Skip("starts servers")
	}
	primary := testservers.StartRedis(t)
	link := tcpproxy.Start(t, primary.Addr())
	_, port, _ := strings.Cut(link.Addr(), ":")
	replica := testservers.StartRedis(t, "--replicaof", "127.0.0.1", port)
	primary.WaitSynced(t, replica)
	waitOnline(t, primary, 1)
	return pair{primary, replica, link}
}

// waitOnline waits until the master lists n replicas as online: after a
// full sync the replica's link is up a moment before the master takes it
// online (at its first acknowledgement), and only online replicas count.
func waitOnline(t *testing.T, master *testservers.Redis, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(master.Do(t, "INFO", "replication"), "state=online") != n {
		if time.Now().After(deadline) {
			t.Fatalf("the master does not list %d replicas online", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// detach cuts the replica off and waits until the master no longer
// counts it.
func (p pair) detach(t *testing.T) {
	t.Helper()
	p.link.Cut()
	deadline := time.Now().Add(10 * time.Second)
	for p.primary.Info(t, "replication", "connected_slaves") != "0" {
		if time.Now().After(deadline) {
			t.Fatal("the master still counts its replica")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLapsedRenewalOnPromotedReplica: holder A's path is cut past its
// TTL; C claims A's node on the master, which the replica (detached)
// never sees; the replica is promoted and the master dies, so the new
// master still names A. A's next renewal must not trust the lease again:
// the master's replication ID is not the one A saw.
func TestLapsedRenewalOnPromotedReplica(t *testing.T) {
	p := startPair(t)
	o := faultOptions()
	pa, pc := via(t, p.primary.Addr()), via(t, p.primary.Addr())
	a := issue(storeVia(t, pa.Addr(), "leases", redislease.StoreOptions{}), o)
	a.started(t, 5*time.Second)
	p.primary.WaitSynced(t, p.replica) // the replica has A's claim
	time.Sleep(o.TTL / 4)
	pa.Cut()
	time.Sleep(o.TTL + o.TTL/4) // A lapses
	p.detach(t)
	// C waits for no replica: with the defaults its claim on a master
	// its replica has left is refused.
	c := issue(storeVia(t, pc.Addr(), "leases", redislease.StoreOptions{Replicas: -1}), o)
	c.started(t, 5*time.Second)
	time.Sleep(o.TTL / 4)
	// The failover: the replica is promoted, the master dies; A's path
	// reaches the new master, C's stays dead (C issues until its lease
	// lapses).
	p.replica.Do(t, "REPLICAOF", "NO", "ONE")
	p.primary.Kill(t)
	pc.Cut()
	if err := pa.MoveTo(p.replica.Addr()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * o.TTL)
	report(t, a, c)
}

// TestMixedOptionsFailover: holders of one hash with different options,
// on a master and a replica (see mixedOptions).
func TestMixedOptionsFailover(t *testing.T) {
	p := startPair(t)
	mixedOptions(t, topology{
		store: func(promoted bool) node.Store {
			if promoted {
				return storeVia(t, p.replica.Addr(), "leases", redislease.StoreOptions{})
			}
			return storeVia(t, p.primary.Addr(), "leases", redislease.StoreOptions{Replicas: -1})
		},
		synced: func() { p.primary.WaitSynced(t, p.replica) },
		detach: func() { p.detach(t) },
		promote: func() {
			p.replica.Do(t, "REPLICAOF", "NO", "ONE")
			p.primary.Kill(t)
		},
		startAfter: 2,
	})
}

// topology is how a fault test reaches and fails over a master and its
// replica: store reaches the master (once promoted, the replica; before,
// waiting for no replica, as the defaults refuse a claim on a master its
// replica has left); synced
// waits until the replica has every write; detach cuts the replica off;
// promote makes it the master and kills the old one. A holder started
// after the promotion has startAfter times the long TTL to issue.
type topology struct {
	store                   func(promoted bool) node.Store
	synced, detach, promote func()
	startAfter              time.Duration
}

// mixedOptions: a holder with TTL 6 s used the hash before (the replica
// has its horizon); A, with TTL 6 s, claims on a master whose replica is
// detached; the replica is promoted and the master dies; B, with TTL 2 s,
// claims on the new master. B must wait out A's horizon, not its own.
func mixedOptions(t *testing.T, tp topology) {
	long := faultOptions()
	long.TTL = 6 * time.Second
	ctx := context.Background()
	w, err := node.NewLease(ctx, tp.store(false), long)
	require.NoError(t, err)
	require.NoError(t, w.Close(ctx))
	tp.synced()
	tp.detach()
	a := issue(tp.store(false), long)
	a.started(t, 2*long.TTL)
	time.Sleep(long.TTL / 4)
	tp.promote() // A issues until its lease lapses
	b := issue(tp.store(true), faultOptions())
	b.started(t, tp.startAfter*long.TTL)
	time.Sleep(long.TTL / 4)
	report(t, a, b)
}

// TestSplitBrainOldMaster: the replica is promoted (as Sentinel does)
// while the old master keeps running and serving holder A; B claims on
// the new master once A's record expired there. A's renewals on the old
// master must stop being trusted: with the defaults they wait for a
// replica, which the old master no longer has.
func TestSplitBrainOldMaster(t *testing.T) {
	p := startPair(t)
	o := faultOptions()
	a := issue(storeVia(t, p.primary.Addr(), "leases", redislease.StoreOptions{}), o)
	a.started(t, 5*time.Second)
	time.Sleep(o.TTL / 2)
	p.replica.Do(t, "REPLICAOF", "NO", "ONE")
	time.Sleep(o.TTL + o.TTL/4)
	b := issue(storeVia(t, p.replica.Addr(), "leases", redislease.StoreOptions{}), o)
	b.started(t, 5*time.Second)
	time.Sleep(o.TTL)
	report(t, a, b)
	if st := a.l.Stats(); st.Fences == 0 {
		t.Errorf("A was never fenced on the old master: %+v", st)
	}
}

// TestEvictingPolicyRefused: a claim refuses a server whose
// maxmemory-policy may evict the lease hash, naming the setting, also
// with CONFIG renamed; a volatile-* policy is refused once a lease key
// has a TTL.
func TestEvictingPolicyRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	ctx := context.Background()
	r := testservers.StartRedis(t, "--maxmemory-policy", "allkeys-lru", "--rename-command", "CONFIG", "")
	c := redis.NewClient(&redis.Options{Addr: r.Addr()})
	defer c.Close()
	_, err := node.NewLease(ctx, redislease.NewStore(c, redislease.StoreOptions{}), node.LeaseOptions{})
	require.ErrorIs(t, err, generator.ErrInvalidConfig)
	require.ErrorContains(t, err, "maxmemory-policy is allkeys-lru")
	require.ErrorContains(t, err, "noeviction")

	v := testservers.StartRedis(t, "--maxmemory-policy", "volatile-lru")
	cv := redis.NewClient(&redis.Options{Addr: v.Addr()})
	defer cv.Close()
	l, err := node.NewLease(ctx, redislease.NewStore(cv, redislease.StoreOptions{}), node.LeaseOptions{})
	require.NoError(t, err, "volatile-lru without a TTL on the lease keys")
	require.NoError(t, l.Close(ctx))
	require.NoError(t, cv.Expire(ctx, defaultKey, time.Hour).Err())
	_, err = node.NewLease(ctx, redislease.NewStore(cv, redislease.StoreOptions{}), node.LeaseOptions{})
	require.ErrorIs(t, err, generator.ErrInvalidConfig)
	require.ErrorContains(t, err, "volatile-lru with a TTL on "+defaultKey)
}

// TestRestartWindowCountsBorrowAhead: a server without persistence
// restarts; holder A, cut off from it, borrows up to 3 s ahead (more than
// its Margin) until its lease lapses; B claims on the empty server 3 s
// after the restart, past TTL + MaxClockOffset but within TTL +
// BorrowAhead + MaxClockOffset. B must wait.
func TestRestartWindowCountsBorrowAhead(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	r := testservers.StartRedis(t)
	o := faultOptions()
	borrow := generator.WithBorrowAhead(3 * time.Second)
	pa := via(t, r.Addr())
	a := issue(storeVia(t, pa.Addr(), "leases", redislease.StoreOptions{}), o, borrow)
	a.started(t, 10*time.Second)
	time.Sleep(o.TTL / 2)
	pa.Cut()
	r.Restart(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		up, _ := strconv.Atoi(r.Info(t, "server", "uptime_in_seconds"))
		if up >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("uptime does not reach 3 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	b := issue(storeVia(t, r.Addr(), "leases", redislease.StoreOptions{}), o, borrow)
	b.started(t, 10*time.Second)
	time.Sleep(o.TTL / 2)
	report(t, a, b)
}

// backup returns a DUMP of the lease keys; restore puts it back, as a
// restore from a backup does, on the same server (its replication ID
// unchanged).
func backup(t *testing.T, c *redis.Client, key string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, k := range []string{key, "{" + key + "}:held", "{" + key + "}:free"} {
		d, err := c.Dump(context.Background(), k).Result()
		require.NoError(t, err, k)
		out[k] = d
	}
	return out
}

func restore(t *testing.T, c *redis.Client, b map[string]string) {
	t.Helper()
	for k, d := range b {
		require.NoError(t, c.RestoreReplace(context.Background(), k, 0, d).Err(), k)
	}
}

// TestRestoreLiveHolderNotices: the lease keys are restored from a backup
// taken while holder A held node 0 (so the backup still names A); A's
// next renewal must notice the hash went back (its version is lower than
// A saw) and heal, and B, started at the restore, repeats none of A's IDs.
func TestRestoreLiveHolderNotices(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	r := testservers.StartRedis(t)
	c := redis.NewClient(&redis.Options{Addr: r.Addr()})
	defer c.Close()
	o := faultOptions()
	a := issue(storeVia(t, r.Addr(), "leases", redislease.StoreOptions{}), o)
	a.started(t, 10*time.Second)
	snap := backup(t, c, "leases")
	renewedSince(t, a, o)
	restore(t, c, snap)
	b := issue(storeVia(t, r.Addr(), "leases", redislease.StoreOptions{}), o)
	deadline := time.Now().Add(3 * o.TTL)
	for a.l.Stats().Reclaims == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("A did not notice the restore: %+v", a.l.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.started(t, 5*time.Second)
	time.Sleep(o.TTL / 2)
	report(t, a, b)
}

// TestRestoreOperatorStep: the lease keys are restored from a backup taken
// before holder A's last renewals (the backup's expiry of A's node has
// passed), and A is cut off from the server (a holder that does not
// notice). The step docs/leases.md gives for processes started after a
// restore, HSET <key> ident restored, makes B's claim wait out A; without
// it B repeats A's IDs, which shows the test can fail.
func TestRestoreOperatorStep(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	for _, step := range []bool{true, false} {
		t.Run(map[bool]string{true: "step", false: "no-step"}[step], func(t *testing.T) {
			r := testservers.StartRedis(t)
			c := redis.NewClient(&redis.Options{Addr: r.Addr()})
			defer c.Close()
			o := faultOptions()
			pa := via(t, r.Addr())
			a := issue(storeVia(t, pa.Addr(), "leases", redislease.StoreOptions{}), o)
			a.started(t, 10*time.Second)
			snap := backup(t, c, "leases")
			time.Sleep(o.TTL + o.TTL/4)
			pa.Cut()
			restore(t, c, snap)
			if step {
				require.NoError(t, c.HSet(context.Background(), "leases", "ident", "restored").Err())
			}
			b := issue(storeVia(t, r.Addr(), "leases", redislease.StoreOptions{}), o)
			b.started(t, 5*time.Second)
			time.Sleep(o.TTL / 2)
			if step {
				report(t, a, b)
				return
			}
			ia, ib := a.halt(), b.halt()
			if n := both(ia, ib); n == 0 {
				t.Errorf("without the step no ID was returned twice (%d and %d IDs): the test cannot fail", len(ia), len(ib))
			} else {
				t.Logf("without the step: %d IDs returned by both", n)
			}
		})
	}
}

// TestWarningsWithoutLogger: with no LeaseOptions.Logger, the store's
// warnings go to slog.Default().
func TestWarningsWithoutLogger(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	r := testservers.StartRedis(t, "--rename-command", "INFO", "")
	var buf strings.Builder
	var mu sync.Mutex
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}), nil)))
	defer slog.SetDefault(prev)
	c := redis.NewClient(&redis.Options{Addr: r.Addr()})
	defer c.Close()
	ctx := context.Background()
	l, err := node.NewLease(ctx, redislease.NewStore(c, redislease.StoreOptions{}), node.LeaseOptions{})
	require.NoError(t, err)
	defer l.Close(ctx)
	mu.Lock()
	defer mu.Unlock()
	require.Contains(t, buf.String(), "cannot read the Redis master replication ID")
}

// renewedSince waits until the holder's lease renewed once more (on a
// busy machine a renewal may come late), or fails t after 3 TTLs.
func renewedSince(t *testing.T, f *flat, o node.LeaseOptions) {
	t.Helper()
	n := f.l.Stats().Renewals
	deadline := time.Now().Add(3 * o.TTL)
	for f.l.Stats().Renewals <= n {
		if time.Now().After(deadline) {
			t.Fatalf("the lease did not renew in %v: %+v", 3*o.TTL, f.l.Stats())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

package redislease_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/internal/testservers"
)

// Split brain with the default options: a replica is promoted (as
// Sentinel does) while the old master keeps serving holder A; B claims on
// the promoted replica once A's record expired there. A must fence on the
// old master, whatever replicas it kept: every claim and renewal waits for
// every replica the store has had.

// splitBrain runs A on the old master and B on the promoted replica of p,
// with before and after what happens to the old master before and after
// the promotion, and checks that no ID was returned twice and A fenced.
func splitBrain(t *testing.T, p pair, before, after func()) {
	t.Helper()
	o := faultOptions()
	a := issue(storeVia(t, p.primary.Addr(), "leases", redislease.StoreOptions{}), o)
	a.started(t, 10*time.Second)
	time.Sleep(o.TTL / 4)
	before()
	p.replica.Do(t, "REPLICAOF", "NO", "ONE")
	after()
	time.Sleep(o.TTL + o.TTL/4) // A's record expires on the promoted replica
	b := issue(storeVia(t, p.replica.Addr(), "leases", redislease.StoreOptions{}), o)
	b.started(t, 10*time.Second)
	time.Sleep(o.TTL)
	fences := a.l.Stats().Fences
	report(t, a, b)
	if fences == 0 {
		t.Errorf("A was never fenced on the old master")
	}
}

// TestSplitBrainSecondReplica: the old master keeps a second replica,
// which acknowledges WAIT 1; A saw two.
func TestSplitBrainSecondReplica(t *testing.T) {
	p := startPair(t)
	_, port, _ := strings.Cut(p.primary.Addr(), ":")
	second := testservers.StartRedis(t, "--replicaof", "127.0.0.1", port)
	p.primary.WaitSynced(t, second)
	waitOnline(t, p.primary, 2)
	splitBrain(t, p, func() {}, func() {})
}

// TestSplitBrainOldMasterAlone: the old master loses its only replica's
// link before the replica is promoted, so it has no replica left to wait
// for.
func TestSplitBrainOldMasterAlone(t *testing.T) {
	p := startPair(t)
	splitBrain(t, p, func() { p.detach(t) }, func() {})
}

// TestSplitBrainNewHolderOnOldMaster: the old master lost its replica's
// link before A's claim (A never saw a replica, the hash did), and the
// replica is then promoted. A's claim must be refused: it can only tell
// that the master has fewer replicas than the hash has seen. B issues on
// the promoted replica, which has no replica (a promotion resets the
// count).
func TestSplitBrainNewHolderOnOldMaster(t *testing.T) {
	p := startPair(t)
	o := faultOptions()
	ctx := context.Background()
	w, err := node.NewLease(ctx, storeVia(t, p.primary.Addr(), "leases", redislease.StoreOptions{}), o)
	require.NoError(t, err)
	require.NoError(t, w.Close(ctx))
	p.primary.WaitSynced(t, p.replica)
	p.detach(t)
	a := issue(storeVia(t, p.primary.Addr(), "leases", redislease.StoreOptions{}), o)
	time.Sleep(o.TTL / 4)
	p.replica.Do(t, "REPLICAOF", "NO", "ONE")
	b := issue(storeVia(t, p.replica.Addr(), "leases", redislease.StoreOptions{}), o)
	b.started(t, 10*time.Second)
	time.Sleep(o.TTL)
	ia, ib := a.halt(), b.halt()
	n := both(ia, ib)
	t.Logf("%d IDs from A (start: %v), %d from B, %d returned by both", len(ia), a.err, len(ib), n)
	if n != 0 {
		t.Errorf("%d IDs returned by both holders", n)
	}
	if a.err != nil && !errors.Is(a.err, redislease.ErrNotReplicated) {
		t.Errorf("A's start: %v, want ErrNotReplicated or none", a.err)
	}
}

// TestSplitBrainRestartedEmpty: the replica is promoted and the old
// master restarts without its data: a new replication ID, no replica and
// no hash. A's renewal finds the hash gone; its claim again there must
// wait for the replica A saw, which the restarted master does not have.
func TestSplitBrainRestartedEmpty(t *testing.T) {
	p := startPair(t)
	splitBrain(t, p, func() {}, func() { p.primary.Restart(t) })
}

// TestHorizonRaiseReplicated: a holder with TTL 2 s created the hash (the
// replica has its horizon); the replica falls behind (its link cut); A,
// with TTL 6 s, claims on the master, raising the horizon in a write the
// replica never gets; the replica is promoted, the master dies, and B,
// with TTL 2 s, claims on it. A's claim must be refused (the hash has
// seen a replica the master no longer has), or B must wait out A's
// horizon; either way no ID is returned twice.
func TestHorizonRaiseReplicated(t *testing.T) {
	p := startPair(t)
	ctx := context.Background()
	short, long := faultOptions(), faultOptions()
	long.TTL = 6 * time.Second
	w, err := node.NewLease(ctx, storeVia(t, p.primary.Addr(), "leases", redislease.StoreOptions{}), short)
	require.NoError(t, err)
	require.NoError(t, w.Close(ctx))
	p.primary.WaitSynced(t, p.replica)
	p.detach(t)
	a := issue(storeVia(t, p.primary.Addr(), "leases", redislease.StoreOptions{}), long)
	time.Sleep(long.TTL / 4)
	p.replica.Do(t, "REPLICAOF", "NO", "ONE")
	p.primary.Kill(t)
	b := issue(storeVia(t, p.replica.Addr(), "leases", redislease.StoreOptions{}), short)
	b.started(t, 2*long.TTL)
	time.Sleep(long.TTL)
	ia, ib := a.halt(), b.halt()
	n := both(ia, ib)
	t.Logf("%d IDs from A (start: %v), %d from B, %d returned by both", len(ia), a.err, len(ib), n)
	if n != 0 {
		t.Errorf("%d IDs returned by both holders", n)
	}
	if a.err != nil && !errors.Is(a.err, redislease.ErrNotReplicated) {
		t.Errorf("A's start: %v, want ErrNotReplicated or none", a.err)
	}
}

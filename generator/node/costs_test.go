package node_test

import (
	"context"
	"errors"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/testdb"
)

// crashable forwards to a Store until crash, then fails every call, as a
// process that died would make none.
type crashable struct {
	node.Store
	dead atomic.Bool
}

var errCrashed = errors.New("crashed")

func (c *crashable) Claim(ctx context.Context, q node.Claim) (node.Claimed, error) {
	if c.dead.Load() {
		return node.Claimed{}, errCrashed
	}
	return c.Store.Claim(ctx, q)
}

func (c *crashable) Renew(ctx context.Context, q node.Renewal) (node.Seen, error) {
	if c.dead.Load() {
		return node.Seen{}, errCrashed
	}
	return c.Store.Renew(ctx, q)
}

func (c *crashable) Release(ctx context.Context, q node.Release) error {
	if c.dead.Load() {
		return errCrashed
	}
	return c.Store.Release(ctx, q)
}

// TestLeaseCosts measures, with the default LeaseOptions on SQLite, the
// costs docs/leases.md "Tuning" states: the renewals a holder makes a
// second, how long a crashed holder's node stays unusable (its last
// renewal to another process's claim of it), and how long a claim after
// a loss waits for its first ID. About 75 s; IDKIT_LEASE_COSTS=1 runs it.
func TestLeaseCosts(t *testing.T) {
	if os.Getenv("IDKIT_LEASE_COSTS") == "" {
		t.Skip("IDKIT_LEASE_COSTS=1 runs it (about 75 s)")
	}
	t.Parallel()
	ctx := context.Background()
	spec := generator.Twitter().Spec()
	spec.NodeBits, spec.Name = 0, "costs0"
	one, err := generator.NewLayout(spec)
	require.NoError(t, err)

	t.Run("renewals", func(t *testing.T) {
		t.Parallel()
		s := sqllease.NewStore(testdb.SQLite(t), sqllease.StoreOptions{})
		l, err := node.NewLease(ctx, s, node.LeaseOptions{})
		require.NoError(t, err)
		defer l.Close(ctx)
		const run = 41 * time.Second
		time.Sleep(run)
		n := l.Stats().Renewals
		t.Logf("renewals: %d in %v: %.3f a second per holder, %.0f for 1,000 holders", n, run, float64(n)/run.Seconds(), 1000*float64(n)/run.Seconds())
	})
	t.Run("crashed", func(t *testing.T) {
		t.Parallel()
		db := testdb.SQLite(t)
		a := &crashable{Store: sqllease.NewStore(db, sqllease.StoreOptions{})}
		la, err := node.NewLease(ctx, a, node.LeaseOptions{}, generator.WithLayout(one))
		require.NoError(t, err)
		// Crash just after a renewal: the node stays held for the TTL.
		r := la.Stats().Renewals
		for la.Stats().Renewals == r {
			time.Sleep(time.Millisecond)
		}
		a.dead.Store(true)
		crashed := time.Now()
		b := sqllease.NewStore(db, sqllease.StoreOptions{})
		var lb *node.Lease
		for {
			lb, err = node.NewLease(ctx, b, node.LeaseOptions{}, generator.WithLayout(one))
			if !errors.Is(err, node.ErrExhausted) {
				break
			}
			require.Less(t, time.Since(crashed), 2*time.Minute)
			time.Sleep(100 * time.Millisecond)
		}
		require.NoError(t, err)
		claimed := time.Since(crashed)
		defer lb.Close(ctx)
		g, err := node.NewSnowflake(ctx, lb)
		require.NoError(t, err)
		_, err = g.Next()
		require.NoError(t, err)
		t.Logf("crashed: the node claimed %v after the crash, first ID %v after it (TTL %v)",
			claimed.Round(time.Millisecond), time.Since(crashed).Round(time.Millisecond), lb.Options().TTL)
		_ = la.Close(ctx)
	})
	t.Run("after-a-loss", func(t *testing.T) {
		t.Parallel()
		db := testdb.SQLite(t)
		s := sqllease.NewStore(db, sqllease.StoreOptions{})
		l, err := node.NewLease(ctx, s, node.LeaseOptions{})
		require.NoError(t, err)
		require.NoError(t, l.Close(ctx))
		// The operator step of a restore: the next claim is a claim after
		// a loss.
		_, err = db.Exec("UPDATE idkit_node_leases SET owner = 'restored' WHERE node = -1")
		require.NoError(t, err)
		start := time.Now()
		l, err = node.NewLease(ctx, s, node.LeaseOptions{})
		require.NoError(t, err)
		defer l.Close(ctx)
		g, err := node.NewSnowflake(ctx, l)
		require.NoError(t, err)
		_, err = g.Next()
		require.NoError(t, err)
		t.Logf("after a loss: first ID %v after the claim started", time.Since(start).Round(time.Millisecond))
	})
}

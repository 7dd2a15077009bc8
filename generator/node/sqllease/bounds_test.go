package sqllease_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

// issuer issues IDs from a lease flat out until stopped, keeping them.
type issuer struct {
	l    *node.Lease
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	ids  []types.Snowflake
}

func startIssuer(t *testing.T, l *node.Lease) *issuer {
	t.Helper()
	g, err := node.NewSnowflake(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	is := &issuer{l: l, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(is.done)
		for {
			select {
			case <-is.stop:
				return
			default:
			}
			id, err := g.Next()
			if err != nil {
				time.Sleep(time.Millisecond)
				continue
			}
			is.mu.Lock()
			is.ids = append(is.ids, id)
			is.mu.Unlock()
		}
	}()
	return is
}

func (is *issuer) halt() []types.Snowflake {
	close(is.stop)
	<-is.done
	return is.ids
}

// repeated counts the IDs in b that a also holds.
func repeated(a, b []types.Snowflake) int {
	seen := make(map[types.Snowflake]struct{}, len(a))
	for _, id := range a {
		seen[id] = struct{}{}
	}
	n := 0
	for _, id := range b {
		if _, ok := seen[id]; ok {
			n++
		}
	}
	return n
}

// TestSQLiteHorizonOutOfBounds: the lease table is restored from a copy
// (with the operator step of docs/leases.md) whose horizon, the identity
// row's version, holds 8e18 ns, while A still issues on node 0, expired
// in the copy. The claim after the restore must wait out the horizon, but
// the database's clock + 8e18 wraps below zero: the store once waited for
// nothing, took node 0 and issued A's IDs again. It refuses the claim with
// node.ErrCorrupt naming the field, writing nothing; once the operator
// sets the horizon right, the claim waits it out and no ID repeats.
func TestSQLiteHorizonOutOfBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("two holders issuing flat out for seconds, every ID kept")
	}
	t.Parallel()
	db := testdb.SQLite(t)
	ctx := context.Background()
	o := node.LeaseOptions{TTL: time.Second}
	store := func() node.Store { return sqllease.NewStore(db, sqllease.StoreOptions{}) }
	la, err := node.NewLease(ctx, store(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer la.Close(ctx)
	a := startIssuer(t, la)
	exec := func(q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE TABLE leases_copy AS SELECT * FROM idkit_node_leases")
	time.Sleep(o.TTL + 200*time.Millisecond) // node 0 expires in the copy; A renews
	exec("BEGIN IMMEDIATE; DELETE FROM idkit_node_leases; INSERT INTO idkit_node_leases SELECT * FROM leases_copy;" +
		" UPDATE idkit_node_leases SET owner = 'restored', version = 8000000000000000000 WHERE node = -1; COMMIT")
	lc, err := node.NewLease(ctx, store(), o)
	var c *issuer
	if err == nil {
		defer lc.Close(ctx)
		c = startIssuer(t, lc)
		time.Sleep(o.TTL)
		ids := c.halt()
		n := repeated(a.halt(), ids)
		t.Fatalf("a claim over a horizon of 8e18 ns succeeded (node %d, %+v): %d of C's %d IDs repeat A's", lc.Stats().Node, lc.Stats(), n, len(ids))
	}
	t.Logf("the claim over a horizon of 8e18 ns: %v", err)
	if !errors.Is(err, node.ErrCorrupt) || !strings.Contains(err.Error(), "version of the identity row") {
		t.Fatalf("the claim over a horizon of 8e18 ns: %v; want node.ErrCorrupt naming the identity row's version", err)
	}
	exec("UPDATE idkit_node_leases SET version = 0 WHERE node = -1") // the operator's repair
	started := time.Now()
	lc, err = node.NewLease(ctx, store(), o)
	if err != nil {
		t.Fatalf("the claim after the repair: %v", err)
	}
	defer lc.Close(ctx)
	c = startIssuer(t, lc)
	time.Sleep(2 * o.TTL)
	ids := c.halt()
	aids := a.halt()
	t.Logf("after the repair: C claimed node %d in %v; A %d IDs, C %d IDs", lc.Stats().Node, time.Since(started).Round(time.Millisecond), len(aids), len(ids))
	if len(ids) == 0 {
		t.Fatalf("C issued nothing after the repair: %+v", lc.Stats())
	}
	if n := repeated(aids, ids); n != 0 {
		t.Fatalf("%d of C's %d IDs repeat A's", n, len(ids))
	}
}

package node_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/internal/testdb"
)

// TestNewSnowflakeCombinesFenceAndFloor: the caller's fence and floor are
// kept beside the lease's, never replaced.
func TestNewSnowflakeCombinesFenceAndFloor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.SQLite(t)
	l, err := node.NewSQLLease(ctx, db, node.LeaseOptions{Layout: layout(t, 4)})
	require.NoError(t, err)
	defer l.Close(ctx)

	stop := errors.New("caller says stop")
	var closed bool
	floor := time.Now().Add(5 * time.Millisecond) // within the backward tolerance: Next waits
	g, err := node.NewSnowflake(ctx, l,
		generator.WithFence(func() error {
			if closed {
				return stop
			}
			return nil
		}),
		generator.WithNotBefore(floor),
	)
	require.NoError(t, err)

	id, err := g.Next()
	require.NoError(t, err)
	p, err := l.Options().Layout.Decompose(id)
	require.NoError(t, err)
	require.True(t, p.Time.After(floor.Truncate(time.Millisecond)), "first id %v not after the caller's floor %v", p.Time, floor)
	require.Equal(t, l.Node(), p.Node)

	closed = true
	_, err = g.Next()
	require.ErrorIs(t, err, generator.ErrFenced)
	require.ErrorIs(t, err, stop, "the caller's fence still applies")

	closed = false
	require.NoError(t, l.Close(ctx))
	_, err = g.Next()
	require.ErrorIs(t, err, node.ErrLeaseClosed, "the lease's fence applies too")
}

// TestNewSnowflakeLeaseFloorWins: a caller floor earlier than the lease's
// does not lower it.
func TestNewSnowflakeLeaseFloorWins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.SQLite(t)
	o, table := node.LeaseOptions{Layout: layout(t, 4)}, testdb.Name("lease")
	a, err := sqlLease(ctx, db, table, o)
	require.NoError(t, err)
	ga, err := node.NewSnowflake(ctx, a, generator.WithBorrowAhead(time.Hour)) // overridden by the lease's 0
	require.NoError(t, err)
	var last generator.Parts
	for range 5000 {
		id, err := ga.Next()
		require.NoError(t, err)
		last, _ = o.Layout.Decompose(id)
	}
	require.False(t, last.Time.After(time.Now().Add(time.Millisecond)), "the lease's borrow-ahead (0) applies")
	require.NoError(t, a.Close(ctx))

	// Claim until a's node comes back (a claim may pick any free node).
	var b *node.Lease
	for b == nil || b.Node() != a.Node() {
		b, err = sqlLease(ctx, db, table, o)
		require.NoError(t, err)
		defer b.Close(ctx)
	}
	gb, err := node.NewSnowflake(ctx, b, generator.WithNotBefore(time.Unix(1, 0)))
	require.NoError(t, err)
	id, err := gb.Next()
	require.NoError(t, err)
	p, _ := o.Layout.Decompose(id)
	require.Greater(t, p.Tick, last.Tick)
}

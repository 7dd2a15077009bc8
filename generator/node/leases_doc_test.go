package node_test

import (
	"context"
	"database/sql"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

// issueOne is the code of docs/leases.md: claim a node in db, make a
// generator on it, issue n IDs, close the lease.
func issueOne(ctx context.Context, db *sql.DB, n int) ([]types.Snowflake, error) {
	lease, err := node.NewLease(ctx, sqllease.NewStore(db, sqllease.StoreOptions{}), node.LeaseOptions{
		Logger: slog.Default(), // optional: one record per change of state
	})
	if err != nil {
		return nil, err
	}
	defer lease.Close(ctx)

	gen, err := node.NewSnowflake(ctx, lease) // hand gen to gormplugin.WithSnowflake, etc.
	if err != nil {
		return nil, err
	}
	ids := make([]types.Snowflake, 0, n)
	for range n {
		id, err := gen.Next()
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// TestLeasesDoc runs the code of docs/leases.md on SQLite: it issues IDs
// on node 0, logs "lease claimed" and "lease closed" through the logger it
// was given, and Close frees the node, so the next run gets node 0 again
// and issues only IDs after the first run's.
func TestLeasesDoc(t *testing.T) {
	recs := newLogRecords()
	old := slog.Default()
	slog.SetDefault(recs.logger())
	t.Cleanup(func() { slog.SetDefault(old) })

	db, err := sql.Open(testdb.SQLiteDriver, testdb.SQLiteDSN(t))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()

	first, err := issueOne(ctx, db, 100)
	require.NoError(t, err)
	second, err := issueOne(ctx, db, 100)
	require.NoError(t, err)

	all := append(first, second...)
	for i := 1; i < len(all); i++ {
		require.Greater(t, all[i], all[i-1], "IDs increase within and across holders")
	}
	for _, id := range all {
		p, err := generator.Twitter().Decompose(id)
		require.NoError(t, err)
		assert.EqualValues(t, 0, p.Node, "a closed lease frees its node")
	}
	assert.Equal(t, 2, recs.count("level=INFO", `msg="lease claimed"`, "owner=", "node=0", "floor="))
	assert.Equal(t, 2, recs.count("level=INFO", `msg="lease closed"`, "owner=", "node=0"))
}

package node_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/testdb"
)

// rawStores are the module's stores, each on a table or key of its own.
func rawStores() []struct {
	name string
	make func(t *testing.T) node.Store
} {
	sqlS := func(open func(testing.TB) *sql.DB) func(t *testing.T) node.Store {
		return func(t *testing.T) node.Store {
			db := open(t)
			table := testdb.Name("lease")
			t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + table) })
			s := sqllease.NewStore(db, sqllease.StoreOptions{Table: table})
			return s
		}
	}
	return []struct {
		name string
		make func(t *testing.T) node.Store
	}{
		{"postgres", sqlS(testdb.Postgres)},
		{"mariadb", sqlS(testdb.MySQL)},
		{"sqlite", sqlS(testdb.SQLite)},
		{"redis", func(t *testing.T) node.Store {
			c := redis.NewClient(&redis.Options{Addr: testdb.RequireRedis(t)})
			key := testdb.Name("lease")
			t.Cleanup(func() { delRedis(c, key); c.Close() })
			return redislease.NewStore(c, redislease.StoreOptions{Key: key})
		}},
	}
}

// TestStoreClaimLowest: the module's stores take the lowest free node
// when a claim has no preference, or its preferred node is held or out of
// range. The contract allows any free node; the protocol cases of package
// nodetest (TestProtocol) check the rest of a claim.
func TestStoreClaimLowest(t *testing.T) {
	t.Parallel()
	const ttl, maxNode = time.Minute, 7
	for _, sm := range rawStores() {
		t.Run(sm.name, func(t *testing.T) {
			t.Parallel()
			s := sm.make(t)
			claim := func(owner string, prefer int64) int64 {
				t.Helper()
				r, err := s.Claim(context.Background(), node.Claim{Owner: owner, TTL: ttl, MaxNode: maxNode, Prefer: prefer, Bound: 1, Horizon: ttl})
				require.NoError(t, err)
				return r.Node
			}
			require.Equal(t, int64(0), claim("a", -1), "no preference: the lowest free node")
			require.Equal(t, int64(5), claim("b", 5))
			require.Equal(t, int64(1), claim("c", 5), "preferred node held by another: the lowest free one")
			require.Equal(t, int64(2), claim("d", maxNode+3), "a preference out of range: the lowest free one")
		})
	}
}

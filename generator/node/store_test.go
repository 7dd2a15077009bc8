package node_test

import (
	"context"
	"database/sql"
	"fmt"
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

// TestStoreClaimPrefer checks the Claim contract's prefer argument and
// floor on every store: the preferred node when it is free, expired or
// the claimer's own; the lowest free node otherwise; the mark recorded
// before the claim as floor, and bound kept as the larger mark.
func TestStoreClaimPrefer(t *testing.T) {
	t.Parallel()
	const ttl, maxNode = 10 * time.Second, 7
	for _, sm := range rawStores() {
		t.Run(sm.name, func(t *testing.T) {
			t.Parallel()
			s := sm.make(t)
			ctx := context.Background()
			seen := map[string]node.Seen{}
			claim := func(owner string, prefer, bound int64) (int64, int64) {
				t.Helper()
				r, err := s.Claim(ctx, node.Claim{Owner: owner, TTL: ttl, MaxNode: maxNode, Prefer: prefer, Bound: bound, Horizon: ttl})
				require.NoError(t, err)
				seen[owner] = r.Seen
				return r.Node, r.Floor
			}
			n, floor := claim("a", -1, 1_000_000)
			require.Equal(t, int64(0), n, "no preference: the lowest free node")
			require.Zero(t, floor)
			n, _ = claim("b", 5, 2_000_000)
			require.Equal(t, int64(5), n, "a free preferred node")
			n, _ = claim("c", 5, 3_000_000)
			require.Equal(t, int64(1), n, "preferred node held by another: the lowest free one")
			n, floor = claim("b", 5, 4_000_000)
			require.Equal(t, int64(5), n, "the claimer's own node")
			require.Equal(t, int64(2_000_000), floor)
			require.NoError(t, s.Release(ctx, node.Release{Node: 5, Owner: "b", Mark: 2_500_000, Exact: true}))
			n, floor = claim("d", 5, 1)
			require.Equal(t, int64(5), n, "a released preferred node")
			require.Equal(t, int64(2_500_000), floor, "the mark recorded at release")
			require.NoError(t, s.Release(ctx, node.Release{Node: 5, Owner: "d", Mark: 0}))
			n, floor = claim("e", 5, 1)
			require.Equal(t, int64(5), n)
			require.Equal(t, int64(2_500_000), floor, "the larger mark was kept")
			n, _ = claim("f", int64(maxNode+3), 1)
			require.Equal(t, int64(2), n, "a preference out of range is ignored")
			for i := 3; i <= maxNode; i++ {
				if i != 5 {
					claim(fmt.Sprint("g", i), -1, 1)
				}
			}
			_, err := s.Claim(ctx, node.Claim{Owner: "h", TTL: ttl, MaxNode: maxNode, Prefer: 0, Bound: 1, Horizon: ttl})
			require.ErrorIs(t, err, node.ErrExhausted)
			_, err = s.Renew(ctx, node.Renewal{Node: 0, Owner: "h", TTL: ttl, Bound: 1, Horizon: ttl, Seen: seen["a"]})
			require.ErrorIs(t, err, node.ErrLeaseLost)
			_, err = s.Renew(ctx, node.Renewal{Node: 0, Owner: "a", TTL: ttl, Bound: 1, Horizon: ttl, Seen: seen["a"]})
			require.NoError(t, err)
		})
	}
}

// TestStoreClaimExpiredPreferred: a preferred node whose lease expired is
// taken with its recorded mark.
func TestStoreClaimExpiredPreferred(t *testing.T) {
	t.Parallel()
	for _, sm := range rawStores() {
		t.Run(sm.name, func(t *testing.T) {
			t.Parallel()
			s := sm.make(t)
			ctx := context.Background()
			for i := range 3 {
				_, err := s.Claim(ctx, node.Claim{Owner: fmt.Sprint("h", i), TTL: 10 * time.Second, MaxNode: 3, Prefer: -1, Bound: 1, Horizon: 10 * time.Second})
				require.NoError(t, err)
			}
			r, err := s.Claim(ctx, node.Claim{Owner: "short", TTL: 100 * time.Millisecond, MaxNode: 3, Prefer: -1, Bound: 777_000, Horizon: 100 * time.Millisecond})
			require.NoError(t, err)
			require.Equal(t, int64(3), r.Node)
			time.Sleep(250 * time.Millisecond) // the store's clock: 100 ms TTL, 150 ms slack
			r, err = s.Claim(ctx, node.Claim{Owner: "next", TTL: 10 * time.Second, MaxNode: 3, Prefer: 3, Bound: 1, Horizon: 10 * time.Second})
			require.NoError(t, err)
			require.Equal(t, int64(3), r.Node)
			require.Equal(t, int64(777_000), r.Floor)
		})
	}
}

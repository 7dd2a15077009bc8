package sqllease_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/testdb"
)

// TestMySQLClaimsSpread: on MySQL/MariaDB, in a layout of more than 64
// nodes, a claim without a preference scans from a node picked at random,
// then from node 0, so claims on a new table do not take the lowest nodes
// in turn, yet every node can be claimed, each once, and the next claim
// is refused with node.ErrExhausted. In a layout of 64 nodes claims take
// the lowest free node.
func TestMySQLClaimsSpread(t *testing.T) {
	t.Parallel()
	db := testdb.MySQL(t)
	for _, c := range []struct {
		name    string
		maxNode int64
		lowest  bool
	}{{"128-nodes", 127, false}, {"64-nodes", 63, true}} {
		t.Run(c.name, func(t *testing.T) {
			table := testdb.Name("spread")
			t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + table) })
			s := sqllease.NewStore(db, sqllease.StoreOptions{Table: table})
			claim := func(owner string) (int64, error) {
				r, err := s.Claim(context.Background(), node.Claim{Owner: owner, TTL: time.Minute, MaxNode: c.maxNode, Prefer: -1, Bound: 1, Horizon: time.Minute})
				return r.Node, err
			}
			var order []int64
			seen := map[int64]bool{}
			for i := range c.maxNode + 1 {
				n, err := claim(fmt.Sprint("owner-", i))
				require.NoError(t, err)
				require.False(t, seen[n], "node %d claimed twice", n)
				seen[n] = true
				order = append(order, n)
			}
			_, err := claim("one-too-many")
			require.ErrorIs(t, err, node.ErrExhausted)
			first := []int64{0, 1, 2, 3, 4, 5, 6, 7}
			if c.lowest {
				require.Equal(t, first, order[:8], "the lowest free node, in turn")
			} else {
				require.NotEqual(t, first, order[:8], "claims spread over the layout")
			}
			t.Logf("first claims: %v", order[:8])
		})
	}
}

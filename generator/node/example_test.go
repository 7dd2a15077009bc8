package node_test

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/types"
)

// runLeased is docs/leases.md's first example: a lease in the application's
// own database and the generator on its node ID, handed to serve, which
// runs until the service stops.
func runLeased(ctx context.Context, db *sql.DB, serve func(*generator.Snowflake) error) error {
	store := sqllease.NewStore(db, sqllease.StoreOptions{}) // package generator/node/sqllease
	lease, err := node.NewLease(ctx, store, node.LeaseOptions{
		Logger: slog.Default(), // optional: one record per change of state
	})
	if err != nil {
		return err
	}
	defer lease.Close(ctx)

	gen, err := node.NewSnowflake(ctx, lease)
	if err != nil {
		return err
	}
	return serve(gen) // hand gen to gormplugin.WithSnowflake, etc.
}

func ExampleNewSnowflake() {
	dir, _ := os.MkdirTemp("", "lease")
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", filepath.Join(dir, "app.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx := context.Background()

	// Claim the lowest free node ID in the application's own database.
	lease, err := node.NewLease(ctx, sqllease.NewStore(db, sqllease.StoreOptions{}), node.LeaseOptions{})
	if err != nil {
		panic(err)
	}
	g, err := node.NewSnowflake(ctx, lease)
	if err != nil {
		panic(err)
	}
	id, err := g.Next()
	if err != nil {
		panic(err) // for example the lease could not be renewed in time
	}
	p, _ := g.Layout().Decompose(id)
	fmt.Println("node", p.Node)

	// A second process (here: a second lease) gets the next free ID.
	other, _ := node.NewLease(ctx, sqllease.NewStore(db, sqllease.StoreOptions{}), node.LeaseOptions{})
	fmt.Println("other node", other.Node())
	other.Close(ctx)

	// Close records the last issued time and frees the ID.
	if err := lease.Close(ctx); err != nil {
		panic(err)
	}
	// Output:
	// node 0
	// other node 1
}

func ExampleLease_Stats() {
	dir, _ := os.MkdirTemp("", "lease")
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", filepath.Join(dir, "app.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx := context.Background()

	lease, err := node.NewLease(ctx, sqllease.NewStore(db, sqllease.StoreOptions{}), node.LeaseOptions{})
	if err != nil {
		panic(err)
	}
	defer lease.Close(ctx)
	g, err := node.NewSnowflake(ctx, lease)
	if err != nil {
		panic(err)
	}
	for range 100 {
		if _, err := g.Next(); err != nil {
			panic(err)
		}
	}
	// What a service exports to its metrics (see examples/leasemetrics).
	st, gs := lease.Stats(), g.Stats()
	fmt.Println("lease:", st.State, "node", st.Node, "reclaims", st.Reclaims)
	fmt.Println("generator: issued", gs.Issued, "fenced", gs.Fenced)
	// Output:
	// lease: held node 0 reclaims 0
	// generator: issued 100 fenced 0
}

// TestRunLeased runs docs/leases.md's first example on SQLite.
func TestRunLeased(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "app.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ids []types.Snowflake
	err = runLeased(context.Background(), db, func(g *generator.Snowflake) error {
		for range 3 {
			id, err := g.Next()
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil || len(ids) != 3 || !(ids[0] < ids[1] && ids[1] < ids[2]) {
		t.Fatalf("runLeased: %v, IDs %v", err, ids)
	}
}

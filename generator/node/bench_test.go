package node_test

import (
	"context"
	"testing"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/testdb"
)

// BenchmarkLeasedSnowflake compares a leased generator with a plain one of
// the same layout, in one run: the ratio leased/plain is the lease's cost.
func BenchmarkLeasedSnowflake(b *testing.B) {
	ctx := context.Background()
	lease, err := node.NewLease(ctx, sqllease.NewStore(testdb.SQLite(b), sqllease.StoreOptions{}), node.LeaseOptions{}, generator.WithBorrowAhead(1<<40))
	if err != nil {
		b.Fatal(err)
	}
	defer lease.Close(ctx)
	leased, err := node.NewSnowflake(ctx, lease)
	if err != nil {
		b.Fatal(err)
	}
	plain, err := generator.NewSnowflake(lease.Node(), generator.WithBorrowAhead(1<<40))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		g    *generator.Snowflake
	}{{"plain", plain}, {"leased", leased}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.g.Next(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := c.g.Next(); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

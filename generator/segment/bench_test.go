package segment_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/idkit-go/idkit/generator/segment"
	"github.com/idkit-go/idkit/internal/testdb"
)

// BenchmarkSegmentNext measures IDs per second from the buffer and reports
// the database statements run per 1,000 IDs, with default options (step
// 1000 growing to 1,000,000) and with the step fixed at 1000.
func BenchmarkSegmentNext(b *testing.B) {
	fixed := segment.Options{Step: 1000, MaxStep: 1000}
	for _, c := range []struct {
		name string
		open func(testing.TB) *sql.DB
		opts segment.Options
	}{
		{"postgres", testdb.Postgres, segment.Options{}},
		{"mariadb", testdb.MySQL, segment.Options{}},
		{"sqlite", testdb.SQLite, segment.Options{}},
		{"postgres-fixed-step-1000", testdb.Postgres, fixed},
	} {
		b.Run(c.name, func(b *testing.B) {
			db := c.open(b)
			name := testdb.Name("segbench")
			b.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + name) })
			opts := c.opts
			opts.Table = name
			a, err := segment.New(context.Background(), db, "bench", opts)
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			ctx := context.Background()
			start := a.Stats().Statements
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := a.Next(ctx); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(a.Stats().Statements-start)*1000/float64(b.N), "stmts/1000ids")
		})
	}
}

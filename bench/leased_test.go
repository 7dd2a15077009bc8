package bench

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite" // registers "sqlite" (pure Go)

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
)

// BenchmarkLeased compares a Snowflake generator on a node ID leased from
// SQLite (sqllease.NewStore, node.NewLease, node.NewSnowflake) with a plain one
// (generator.NewSnowflake) of the same node and options, in one run. The
// leased generator checks the lease's fence before and after each ID.
//
// Variants: "borrow" and "borrow/parallel" borrow up to a minute ahead, so
// that the format's cap of 4096 IDs per ms is not what is measured and the
// fence's cost shows; "cap" uses the defaults (no borrowing), where both
// wait for the next millisecond after 4096 IDs.
func BenchmarkLeased(b *testing.B) {
	ctx := context.Background()
	variants := []struct {
		name     string
		borrow   time.Duration
		parallel bool
	}{
		{"borrow", time.Minute, false},
		{"borrow/parallel", time.Minute, true},
		{"cap", 0, false},
	}
	for _, v := range variants {
		// A fresh database per variant: a closed lease's high-water mark
		// (up to BorrowAhead ahead) would make the next claim of the same
		// node ID wait for it.
		db, err := sql.Open("sqlite", "file:"+filepath.Join(b.TempDir(), "lease.db")+
			"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
		if err != nil {
			b.Fatal(err)
		}
		lease, err := node.NewLease(ctx, sqllease.NewStore(db, sqllease.StoreOptions{}), node.LeaseOptions{}, generator.WithBorrowAhead(v.borrow))
		if err != nil {
			b.Fatal(err)
		}
		leased, err := node.NewSnowflake(ctx, lease)
		if err != nil {
			b.Fatal(err)
		}
		// The plain generator uses another node ID so that the two never
		// share one, as two processes would not.
		plain, err := generator.NewSnowflake((lease.Node()+1)%1024, generator.WithBorrowAhead(v.borrow))
		if err != nil {
			b.Fatal(err)
		}
		for _, g := range []struct {
			impl string
			g    *generator.Snowflake
		}{{"idkit-leased", leased}, {"plain", plain}} {
			b.Run("Snowflake/"+g.impl+"/"+v.name, func(b *testing.B) {
				b.ReportAllocs()
				next := func() byte {
					id, err := g.g.Next()
					if err != nil {
						panic(err)
					}
					return byte(id)
				}
				if v.parallel {
					runParallel(b, next)
					return
				}
				var acc byte
				for b.Loop() {
					acc ^= next()
				}
				sinkByte = acc
			})
		}
		if err := lease.Close(ctx); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}

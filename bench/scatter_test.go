package bench

import (
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// BenchmarkScatter measures what a key in a scatter form costs to make
// beside the ordered ID, on 1 goroutine: Snowflake generators with
// borrow-ahead (so that the format's cap of 4096 IDs per ms is not what is
// measured) and ObjectID generators, each with and without
// generator.WithForm, and types.NewUUIDv7 beside Form.NewUUID.
// Names: Scatter/KIND/FORM, FORM being plain, reversed, shard4 or shard8.
func BenchmarkScatter(b *testing.B) {
	for _, f := range []struct {
		name string
		form types.Form
	}{{"plain", types.Form{}}, {"reversed", types.BitReversed()}, {"shard4", types.ShardBits(4)}} {
		b.Run("Snowflake/"+f.name, func(b *testing.B) {
			g, err := generator.NewSnowflake(5, generator.WithBorrowAhead(time.Minute), generator.WithForm(f.form))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var acc byte
			for b.Loop() {
				id, err := g.Next()
				if err != nil {
					b.Fatal(err)
				}
				acc ^= byte(id)
			}
			sinkByte = acc
		})
	}
	for _, f := range []struct {
		name string
		form types.Form
	}{{"plain", types.Form{}}, {"shard8", types.ShardBits(8)}} {
		b.Run("ObjectID/"+f.name, func(b *testing.B) {
			g, err := generator.NewObjectID(generator.WithForm(f.form))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var acc byte
			for b.Loop() {
				acc ^= g.Next()[11]
			}
			sinkByte = acc
		})
		b.Run("UUIDv7/"+f.name, func(b *testing.B) {
			b.ReportAllocs()
			var acc byte
			for b.Loop() {
				id, err := f.form.NewUUID()
				if err != nil {
					b.Fatal(err)
				}
				acc ^= id[15]
			}
			sinkByte = acc
		})
	}
}

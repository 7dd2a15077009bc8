package types_test

import (
	"testing"

	"github.com/idkit-go/idkit/types"
)

// BenchmarkForm measures each conversion alone, on a fixed ID (the
// generators' cost is in bench/).
func BenchmarkForm(b *testing.B) {
	sid := types.Snowflake(1946618112823218176)
	oid := types.MustParseObjectID("6592008029c8c3e4dc76256c")
	uid := types.MustParseUUID("019a4c1e-2f00-7abc-9def-0123456789ab")
	b.Run("Snowflake/reversed", func(b *testing.B) {
		f := types.BitReversed()
		for b.Loop() {
			_, _ = f.Snowflake(sid)
		}
	})
	b.Run("Snowflake/shard4", func(b *testing.B) {
		f := types.ShardBits(4)
		for b.Loop() {
			_, _ = f.Snowflake(sid)
		}
	})
	b.Run("ObjectID/shard8", func(b *testing.B) {
		f := types.ShardBits(8)
		for b.Loop() {
			_, _ = f.ObjectID(oid)
		}
	})
	b.Run("UUID/shard8", func(b *testing.B) {
		f := types.ShardBits(8)
		for b.Loop() {
			_, _ = f.UUID(uid)
		}
	})
}

// BenchmarkNewUUIDForm measures Form.NewUUID in the ordered form and in
// shard:8 beside NewUUIDv7, on one goroutine, each keeping the UUID in a
// variable as a caller does. Form.NewUUID's two results make the caller
// copy the UUID out of the call's result, where NewUUIDv7()[15] reads a
// byte of it in place (BenchmarkGenerate): so the copy is timed here for
// NewUUIDv7 too, by storing each UUID.
func BenchmarkNewUUIDForm(b *testing.B) {
	b.Run("NewUUIDv7", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkUUID = types.NewUUIDv7()
		}
	})
	for _, f := range []struct {
		name string
		form types.Form
	}{{"plain", types.Form{}}, {"shard8", types.ShardBits(8)}} {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				id, err := f.form.NewUUID()
				if err != nil {
					b.Fatal(err)
				}
				sinkUUID = id
			}
		})
	}
}

var sinkUUID types.UUID

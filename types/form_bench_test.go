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

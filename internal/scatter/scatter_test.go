package scatter

import (
	"encoding/binary"
	"testing"
)

var sink uint64

// BenchmarkTransforms measures each transform alone, on IDs written as the
// generators write them.
func BenchmarkTransforms(b *testing.B) {
	b.Run("Reverse63", func(b *testing.B) {
		var acc uint64
		for i := range uint64(b.N) {
			acc ^= Reverse63(i)
		}
		sink = acc
	})
	b.Run("Snowflake", func(b *testing.B) {
		var acc uint64
		for i := range uint64(b.N) {
			acc ^= Snowflake(i, 4)
		}
		sink = acc
	})
	b.Run("ObjectID", func(b *testing.B) {
		var id [12]byte
		for i := range b.N {
			binary.BigEndian.PutUint64(id[0:8], uint64(i)<<20)
			binary.BigEndian.PutUint32(id[8:12], uint32(i))
			ObjectID(&id, 8)
		}
		sink = uint64(id[0])
	})
	b.Run("UUID", func(b *testing.B) {
		var id [16]byte
		for i := range b.N {
			binary.BigEndian.PutUint64(id[0:8], uint64(i)<<20|0x7000)
			binary.BigEndian.PutUint64(id[8:16], uint64(i))
			UUID(&id, 8, 8)
		}
		sink = uint64(id[0])
	})
}

package bench

import (
	"testing"
	"time"

	"github.com/bwmarrin/snowflake"
	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
	"github.com/rs/xid"
	"github.com/sony/sonyflake"
	v1primitive "go.mongodb.org/mongo-driver/bson/primitive"
	v2bson "go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/meteor"
	"github.com/idkit-go/idkit/types"
)

var (
	sinkOID  types.ObjectID
	sinkV2   v2bson.ObjectID
	sinkV1   v1primitive.ObjectID
	sinkXID  xid.ID
	sinkU    uuid.UUID
	sinkUL   ulid.ULID
	sinkI64  int64
	sinkU64  uint64
	sinkSnow snowflake.ID
)

// generators lists each ID generator measured, as a function making one ID.
func generators(tb testing.TB) []struct {
	name string
	next func()
} {
	sf, err := generator.NewSnowflake(1)
	if err != nil {
		tb.Fatal(err)
	}
	sfBorrow, err := generator.NewSnowflake(2, generator.WithBorrowAhead(time.Second))
	if err != nil {
		tb.Fatal(err)
	}
	// A fresh ObjectID generator per run: one generator makes at most 2^24
	// IDs per second (the format's counter), and run.sh measures 8M IDs.
	oid, err := generator.NewObjectID()
	if err != nil {
		tb.Fatal(err)
	}
	met, err := meteor.New(1)
	if err != nil {
		tb.Fatal(err)
	}
	bw, err := snowflake.NewNode(1)
	if err != nil {
		tb.Fatal(err)
	}
	sony, err := sonyflake.New(sonyflake.Settings{MachineID: func() (uint16, error) { return 1, nil }})
	if err != nil {
		tb.Fatal(err)
	}
	entropy := ulid.DefaultEntropy()
	return []struct {
		name string
		next func()
	}{
		{"ObjectID/idkit", func() { sinkOID = oid.Next() }},
		{"ObjectID/mongo-v2", func() { sinkV2 = v2bson.NewObjectID() }},
		{"ObjectID/mongo-v1", func() { sinkV1 = v1primitive.NewObjectID() }},
		{"ObjectID/xid", func() { sinkXID = xid.New() }},
		{"Snowflake/idkit", func() { v, _ := sf.Next(); sinkI64 = int64(v) }},
		{"Snowflake/idkit-borrow", func() { v, _ := sfBorrow.Next(); sinkI64 = int64(v) }},
		{"Snowflake/idkit-meteor", func() { v, _ := met.Next(); sinkI64 = int64(v) }},
		{"Snowflake/bwmarrin", func() { sinkSnow = bw.Generate() }},
		{"Snowflake/sonyflake", func() { sinkU64, _ = sony.NextID() }},
		{"UUIDv7/google", func() { sinkU, _ = uuid.NewV7() }},
		{"ULID/oklog", func() { sinkUL = ulid.MustNew(ulid.Now(), entropy) }},
	}
}

func BenchmarkGenerate(b *testing.B) {
	for _, g := range generators(b) {
		if g.name == "Snowflake/sonyflake" {
			continue // 25,600 IDs/s: see BenchmarkSustained
		}
		b.Run(g.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g.next()
			}
		})
	}
}

func BenchmarkGenerateParallel(b *testing.B) {
	for _, g := range generators(b) {
		if g.name == "Snowflake/sonyflake" || g.name == "ULID/oklog" {
			continue // sonyflake: capped; ulid's default entropy is locked
		}
		b.Run(g.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					g.next()
				}
			})
		})
	}
}

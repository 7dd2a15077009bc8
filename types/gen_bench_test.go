package types_test

import (
	"testing"

	v2bson "go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/types"
)

// genPeers are the peers BenchmarkGenerate runs beside idkit's generators;
// gen_std_bench_test.go adds Go 1.27's uuid.NewV7 when the toolchain has it.
var genPeers = []struct {
	name string
	next func() byte
}{
	{"ObjectID/mongo-v2", func() byte { return v2bson.NewObjectID()[11] }},
}

// BenchmarkGenerate measures NewObjectID and NewUUIDv7 on one goroutine,
// beside mongo-driver v2's NewObjectID and (built with Go 1.27 or later)
// the standard library's uuid.NewV7, as bench/'s BenchmarkGenerate does.
// It compiles against older commits too, so that one run can interleave
// this tree's code with theirs.
func BenchmarkGenerate(b *testing.B) {
	gens := append([]struct {
		name string
		next func() byte
	}{
		{"ObjectID/idkit", func() byte { return types.NewObjectID()[11] }},
		{"UUIDv7/idkit", func() byte { return types.NewUUIDv7()[15] }},
	}, genPeers...)
	for _, g := range gens {
		b.Run(g.name, func(b *testing.B) {
			b.ReportAllocs()
			var acc byte
			for b.Loop() {
				acc ^= g.next()
			}
			sinkByte = acc
		})
	}
}

var sinkByte byte

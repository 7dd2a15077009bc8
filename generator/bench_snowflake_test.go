package generator_test

import (
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

var (
	sinkID    types.Snowflake
	sinkParts generator.Parts
)

// benchGenerators returns generators on the system clock: two with the
// Twitter layout, whose 4096 IDs per ms cap the rate at about 244 ns/ID (one
// waiting on exhaustion, one borrowing up to 5 ms ahead, which hides the
// overshoot of short sleeps), and one with a 21-bit sequence, which measures
// the generator's own cost.
func benchGenerators(b *testing.B) map[string]*generator.Snowflake {
	b.Helper()
	wide, err := generator.NewLayout(generator.LayoutSpec{Name: "wide", TimeBits: 41, NodeBits: 1, SequenceBits: 21,
		Unit: time.Millisecond, Epoch: generator.Twitter().Spec().Epoch})
	if err != nil {
		b.Fatal(err)
	}
	gens := map[string]*generator.Snowflake{}
	for name, opts := range map[string][]generator.SnowflakeOption{
		"twitter":        nil,
		"twitter-borrow": {generator.WithBorrowAhead(5 * time.Millisecond)},
		"wide":           {generator.WithLayout(wide)},
		"wide-percpu":    {generator.WithLayout(wide), generator.WithPerCPUBlocks(64)},
	} {
		g, err := generator.NewSnowflake(1, opts...)
		if err != nil {
			b.Fatal(err)
		}
		gens[name] = g
	}
	return gens
}

func BenchmarkSnowflakeNext(b *testing.B) {
	for _, name := range []string{"twitter", "twitter-borrow", "wide", "wide-percpu"} {
		g := benchGenerators(b)[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var id types.Snowflake
			for b.Loop() {
				var err error
				if id, err = g.Next(); err != nil {
					b.Fatal(err)
				}
			}
			sinkID = id
		})
	}
}

func BenchmarkSnowflakeNextParallel(b *testing.B) {
	for _, name := range []string{"twitter", "twitter-borrow", "wide", "wide-percpu"} {
		g := benchGenerators(b)[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var id types.Snowflake
				for pb.Next() {
					var err error
					if id, err = g.Next(); err != nil {
						b.Error(err)
						return
					}
				}
				sinkID = id
			})
		})
	}
}

func BenchmarkLayoutDecompose(b *testing.B) {
	b.ReportAllocs()
	var p generator.Parts
	for b.Loop() {
		var err error
		if p, err = generator.Twitter().Decompose(1541815603606036480); err != nil {
			b.Fatal(err)
		}
	}
	sinkParts = p
}

func BenchmarkLayoutCompose(b *testing.B) {
	b.ReportAllocs()
	var id types.Snowflake
	for b.Loop() {
		var err error
		if id, err = generator.Twitter().Compose(367597485448, 378, 0); err != nil {
			b.Fatal(err)
		}
	}
	sinkID = id
}

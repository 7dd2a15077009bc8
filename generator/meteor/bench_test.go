package meteor_test

import (
	"testing"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/meteor"
)

func BenchmarkMeteorNext(b *testing.B) {
	g, _ := meteor.New(1, meteor.Default())
	b.ReportAllocs()
	for b.Loop() {
		_, _ = g.Next()
	}
}

func BenchmarkMeteorNextParallel(b *testing.B) {
	g, _ := meteor.New(1, meteor.Default())
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, _ = g.Next()
		}
	})
}

func BenchmarkMeteorNextParallelPerCPUBlocks(b *testing.B) {
	g, _ := meteor.New(1, meteor.Default(), generator.WithPerCPUBlocks(64))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, _ = g.Next()
		}
	})
}

// The Snowflake generator with borrow-ahead, for comparison in the same run
// (without borrowing it is capped at 4096 IDs per ms by design).
func BenchmarkSnowflakeNext(b *testing.B) {
	g, _ := generator.NewSnowflake(1, generator.WithBorrowAhead(1<<40))
	b.ReportAllocs()
	for b.Loop() {
		_, _ = g.Next()
	}
}

func BenchmarkSnowflakeNextParallel(b *testing.B) {
	g, _ := generator.NewSnowflake(1, generator.WithBorrowAhead(1<<40))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, _ = g.Next()
		}
	})
}

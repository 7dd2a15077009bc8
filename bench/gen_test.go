package bench

import (
	"runtime"
	"sync"
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

// perCPUBlock is the block size of the generators measured with
// WithPerCPUBlocks.
const perCPUBlock = 64

var (
	sinkMu   sync.Mutex
	sinkByte byte
	sinkOID  types.ObjectID
	sinkV2   v2bson.ObjectID
	sinkXID  xid.ID
)

// generators lists each ID generator measured, as a function making one ID
// and returning a byte of it. Callers fold the bytes into a local variable:
// a shared sink written by every goroutine would bounce its cache line
// between cores and measure that instead of the generator.
func generators(tb testing.TB) []struct {
	name string
	next func() byte
} {
	sf, err := generator.NewSnowflake(1)
	if err != nil {
		tb.Fatal(err)
	}
	// Borrowing up to a minute ahead: a run's 8M IDs need about 2 s of
	// Twitter ticks, so a shorter bound would measure the format's cap.
	sfBorrow, err := generator.NewSnowflake(2, generator.WithBorrowAhead(time.Minute))
	if err != nil {
		tb.Fatal(err)
	}
	// ObjectID generators with a random process-unique value, into which the
	// counter carries rather than wait after 2^24 IDs in a second.
	oid, err := generator.NewObjectID()
	if err != nil {
		tb.Fatal(err)
	}
	oidPerCPU, err := generator.NewObjectID(generator.WithPerCPUBlocks(perCPUBlock))
	if err != nil {
		tb.Fatal(err)
	}
	sfPerCPU, err := generator.NewSnowflake(3, generator.WithBorrowAhead(time.Minute), generator.WithPerCPUBlocks(perCPUBlock))
	if err != nil {
		tb.Fatal(err)
	}
	met, err := meteor.New(1, meteor.Default())
	if err != nil {
		tb.Fatal(err)
	}
	metPerCPU, err := meteor.New(2, meteor.Default(), generator.WithPerCPUBlocks(perCPUBlock))
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
	gens := []struct {
		name string
		next func() byte
	}{
		{"ObjectID/idkit", func() byte { return oid.Next()[11] }},
		{"ObjectID/idkit-percpu", func() byte { return oidPerCPU.Next()[11] }},
		{"ObjectID/mongo-v2", func() byte { return v2bson.NewObjectID()[11] }},
		{"ObjectID/mongo-v1", func() byte { return v1primitive.NewObjectID()[11] }},
		{"ObjectID/xid", func() byte { return xid.New()[11] }},
		{"Snowflake/idkit", func() byte { v, _ := sf.Next(); return byte(v) }},
		{"Snowflake/idkit-borrow", func() byte { v, _ := sfBorrow.Next(); return byte(v) }},
		{"Snowflake/idkit-borrow-percpu", func() byte { v, _ := sfPerCPU.Next(); return byte(v) }},
		{"Snowflake/idkit-meteor", func() byte { v, _ := met.Next(); return byte(v) }},
		{"Snowflake/idkit-meteor-percpu", func() byte { v, _ := metPerCPU.Next(); return byte(v) }},
		{"Snowflake/bwmarrin", func() byte { return byte(bw.Generate()) }},
		{"Snowflake/sonyflake", func() byte { v, _ := sony.NextID(); return byte(v) }},
		{"UUIDv7/idkit", func() byte { return types.NewUUIDv7()[15] }},
		{"UUIDv7/google", func() byte { u, _ := uuid.NewV7(); return u[15] }},
		{"ULID/oklog", func() byte { return ulid.MustNew(ulid.Now(), entropy)[15] }},
	}
	return append(gens, stdGenerators...)
}

// stdGenerators are the generators of the standard library that the Go
// version building the benchmarks has (see std_test.go).
var stdGenerators []struct {
	name string
	next func() byte
}

func BenchmarkGenerate(b *testing.B) {
	for _, g := range generators(b) {
		if g.name == "Snowflake/sonyflake" {
			continue // 25,600 IDs/s: see BenchmarkSustained
		}
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

func BenchmarkGenerateParallel(b *testing.B) {
	for _, g := range generators(b) {
		if g.name == "Snowflake/sonyflake" || g.name == "ULID/oklog" {
			continue // sonyflake: capped; ulid's default entropy is locked
		}
		b.Run(g.name, func(b *testing.B) {
			b.ReportAllocs()
			runParallel(b, g.next)
		})
	}
}

// runParallel calls next b.N times, split evenly over GOMAXPROCS goroutines
// that start together, and reports the wall time per call.
//
// It replaces testing.B.RunParallel, which hands out iterations from one
// shared atomic counter in grains sized from the previous run. run.sh fixes
// the count with -benchtime Nx, so the previous run is the N=1 probe and the
// grain is 1: every call would also pay for an atomic add contended by all
// cores, about as costly as a fast generator itself.
func runParallel(b *testing.B, next func() byte) {
	procs := runtime.GOMAXPROCS(0)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range procs {
		n := b.N / procs
		if i < b.N%procs {
			n++
		}
		wg.Go(func() {
			<-start
			var acc byte
			for range n {
				acc ^= next()
			}
			sinkMu.Lock()
			sinkByte ^= acc
			sinkMu.Unlock()
		})
	}
	b.ResetTimer()
	close(start)
	wg.Wait()
}

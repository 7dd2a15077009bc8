package bench

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bwmarrin/snowflake"
	"github.com/sony/sonyflake"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/meteor"
)

// capPerCPUBlock is the per-CPU block of the Snowflake generator measured at
// the format's cap: without borrowing, a P's unused values are dropped when
// the tick ends, so a small block keeps that loss well under 1%.
const capPerCPUBlock = 8

// sustainedWindow is how long each sustained Snowflake run generates.
const sustainedWindow = time.Second

// int64Generators are the generators measured for sustained throughput.
func int64Generators(tb testing.TB) []struct {
	name string
	make func() func() int64 // a fresh generator per run
} {
	mustSF := func(opts ...generator.SnowflakeOption) func() int64 {
		g, err := generator.NewSnowflake(1, opts...)
		if err != nil {
			tb.Fatal(err)
		}
		return func() int64 {
			v, err := g.Next()
			if err != nil {
				panic(err)
			}
			return int64(v)
		}
	}
	mustMeteor := func(opts ...generator.SharedOption) func() int64 {
		m, err := meteor.New(1, meteor.Default(), opts...)
		if err != nil {
			tb.Fatal(err)
		}
		return func() int64 { return int64(m.MustNext()) }
	}
	return []struct {
		name string
		make func() func() int64
	}{
		{"Snowflake/idkit", func() func() int64 { return mustSF() }},
		{"Snowflake/idkit-percpu", func() func() int64 { return mustSF(generator.WithPerCPUBlocks(capPerCPUBlock)) }},
		{"Snowflake/idkit-borrow", func() func() int64 { return mustSF(generator.WithBorrowAhead(time.Minute)) }},
		{"Snowflake/idkit-borrow-percpu", func() func() int64 {
			return mustSF(generator.WithBorrowAhead(time.Minute), generator.WithPerCPUBlocks(perCPUBlock))
		}},
		{"Snowflake/idkit-meteor", func() func() int64 { return mustMeteor() }},
		{"Snowflake/idkit-meteor-percpu", func() func() int64 { return mustMeteor(generator.WithPerCPUBlocks(perCPUBlock)) }},
		{"Snowflake/bwmarrin", func() func() int64 {
			n, err := snowflake.NewNode(1)
			if err != nil {
				tb.Fatal(err)
			}
			return func() int64 { return n.Generate().Int64() }
		}},
		{"Snowflake/sonyflake", func() func() int64 {
			s, err := sonyflake.New(sonyflake.Settings{MachineID: func() (uint16, error) { return 1, nil }})
			if err != nil {
				tb.Fatal(err)
			}
			return func() int64 {
				v, err := s.NextID()
				if err != nil {
					panic(err)
				}
				return int64(v)
			}
		}},
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSustained runs each Snowflake generator flat out for one second
// on one and on two goroutines and reports IDs per second and CPU time per
// ID; it fails on any duplicate. Then it runs the ObjectID rows (see
// sustainedObjectID), which count duplicates instead. b.N is ignored: one
// run is one window.
func BenchmarkSustained(b *testing.B) {
	sustainedSnowflake(b)
	releaseBuffers()
	sustainedObjectID(b)
}

func sustainedSnowflake(b *testing.B) {
	for _, g := range int64Generators(b) {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/goroutines=%d", g.name, workers), func(b *testing.B) {
				for b.Loop() {
					next := g.make()
					ids := make([][]int64, workers)
					bufs := make([][]int64, workers)
					for w := range workers {
						bufs[w] = buffer(w)
					}
					// Collect the previous run's garbage (its sorted copy of
					// every ID) now, not on this run's CPU time.
					runtime.GC()
					var wg sync.WaitGroup
					cpu0, start := cpuTime(), time.Now()
					deadline := start.Add(sustainedWindow)
					for w := range workers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							ids[w] = collect(next, deadline, bufs[w])
						}()
					}
					wg.Wait()
					elapsed, cpu := time.Since(start), cpuTime()-cpu0
					all := slices.Concat(ids...)
					slices.Sort(all)
					if i := dupIndex(all); i >= 0 {
						b.Fatalf("duplicate ID %d", all[i])
					}
					b.ReportMetric(float64(len(all))/elapsed.Seconds(), "ids/s")
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(len(all)), "cpu-ns/id")
				}
			})
		}
	}
}

// maxPerWorker bounds how many IDs one goroutine may make in a window.
const maxPerWorker = 128 << 20

// buffers are the goroutines' ID buffers, allocated and touched once before
// any window starts, so that page faults and zeroing are not measured.
var buffers [2][]int64

// releaseBuffers lets the Snowflake rows' buffers be collected.
func releaseBuffers() {
	buffers = [2][]int64{}
	runtime.GC()
	debug.FreeOSMemory()
}

func buffer(w int) []int64 {
	if buffers[w] == nil {
		b := make([]int64, maxPerWorker)
		for i := 0; i < len(b); i += 512 {
			b[i] = 1 // fault the page in now
		}
		buffers[w] = b
	}
	return buffers[w][:0]
}

// collect calls next until the deadline and returns every ID, written into
// a buffer prepared in advance.
func collect(next func() int64, deadline time.Time, buf []int64) []int64 {
	for len(buf)+256 <= cap(buf) {
		for range 256 {
			buf = append(buf, next())
		}
		if time.Now().After(deadline) {
			return buf
		}
	}
	panic("bench: more IDs than maxPerWorker in one window")
}

func dupIndex(sorted []int64) int {
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return i
		}
	}
	return -1
}

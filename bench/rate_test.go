package bench

import (
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/bwmarrin/snowflake"
	v2bson "go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/generator"
)

// rateGenerators are the generators measured at fixed rates, each as a
// function that makes a fresh generator and returns its next-ID function;
// "none" makes no ID, so its row is the cost of the pacing loop alone.
func rateGenerators(tb testing.TB) []struct {
	name string
	make func() func() byte
} {
	must := func(err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	return []struct {
		name string
		make func() func() byte
	}{
		{"none", func() func() byte { return func() byte { return 0 } }},
		{"Snowflake-idkit", func() func() byte {
			g, err := generator.NewSnowflake(1)
			must(err)
			return func() byte { v, _ := g.Next(); return byte(v) }
		}},
		{"Snowflake-bwmarrin", func() func() byte {
			n, err := snowflake.NewNode(1)
			must(err)
			return func() byte { return byte(n.Generate()) }
		}},
		{"ObjectID-idkit", func() func() byte {
			g, err := generator.NewObjectID()
			must(err)
			return func() byte { return g.Next()[11] }
		}},
		{"ObjectID-mongo-v2", func() func() byte {
			return func() byte { return v2bson.NewObjectID()[11] }
		}},
	}
}

// processCPU is the process's user plus system CPU time so far.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// paced calls next at perSecond calls a second for window (flat out when
// perSecond is 0) and returns the number of calls. It wakes at most once a
// millisecond and makes the calls that are due, so rates above 1,000 a
// second come in small bursts, as requests do.
func paced(next func() byte, perSecond int, window time.Duration) int {
	var acc byte
	n := 0
	start := time.Now()
	if perSecond == 0 {
		for time.Since(start) < window {
			for range 1000 {
				acc ^= next()
			}
			n += 1000
		}
		sinkByte = acc
		return n
	}
	period := max(time.Second/time.Duration(perSecond), time.Millisecond)
	total := int(int64(perSecond) * int64(window) / int64(time.Second))
	for n < total {
		due := min(int(int64(time.Since(start))*int64(perSecond)/int64(time.Second))+1, total)
		for ; n < due; n++ {
			acc ^= next()
		}
		// Sleep to the next period boundary after start.
		elapsed := time.Since(start)
		time.Sleep(period - elapsed%period)
	}
	sinkByte = acc
	return n
}

// rateRound counts the runs of BenchmarkRate in this process (one per
// -count), which rotate the order of the rows.
var rateRound int

// BenchmarkRate runs each generator at fixed rates for a fixed window and
// reports the process CPU time per ID (getrusage, so it includes any
// background goroutine a generator runs) as cpu-ns/ID. The "none" row is
// the pacing loop alone; cmd/benchreport subtracts it. Run it with
// -benchtime 1x: each row measures its whole window once, whatever b.N.
// Each run (-count) starts the rows of each rate at a different generator,
// so that no row always runs first after the previous rate's flat-out rows
// or last before the next rate. One run takes under a minute.
func BenchmarkRate(b *testing.B) {
	rates := []struct {
		name      string
		perSecond int // 0: flat out, one goroutine
		window    time.Duration
	}{
		{"1perSec", 1, 4 * time.Second},
		{"10perSec", 10, 2 * time.Second},
		{"1kPerSec", 1000, time.Second},
		{"100kPerSec", 100_000, time.Second},
		{"flatOut", 0, 500 * time.Millisecond},
	}
	round := rateRound
	rateRound++
	for i, r := range rates {
		gens := rateGenerators(b)
		k := (round + i) % len(gens)
		gens = slices.Concat(gens[k:], gens[:k])
		for _, g := range gens {
			b.Run(r.name+"/"+g.name, func(b *testing.B) {
				next := g.make()
				next() // start any lazy state outside the window
				// Let background goroutines from earlier rows stop.
				time.Sleep(50 * time.Millisecond)
				runtime.GC()
				b.ResetTimer()
				before := processCPU(b)
				n := paced(next, r.perSecond, r.window)
				cpu := processCPU(b) - before
				b.StopTimer()
				b.ReportMetric(0, "ns/op")
				b.ReportMetric(float64(n)/r.window.Seconds(), "IDs/s")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/ID")
			})
		}
	}
}

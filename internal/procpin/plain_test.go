//go:build unix

package procpin_test

import (
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/idkit-go/idkit/internal/procpin"
)

// poolBlocks is the plain version of procpin.Blocks, for the benchmark
// below: blocks kept in a sync.Pool (which pins to the P inside the
// runtime) instead of one per P pinned through a linkname.
type poolBlocks struct {
	size uint64
	pool sync.Pool
}

type plainBlock struct{ next, end uint64 }

func (b *poolBlocks) take(counter *atomic.Uint64) uint64 {
	blk, _ := b.pool.Get().(*plainBlock)
	if blk == nil {
		blk = new(plainBlock)
	}
	if blk.next == blk.end {
		blk.next = counter.Add(b.size) - b.size
		blk.end = blk.next + b.size
	}
	v := blk.next
	blk.next++
	b.pool.Put(blk)
	return v
}

var sinkTake uint64

// BenchmarkTake compares Blocks.Take with the plain sync.Pool version on
// every P, with blocks of 1024 values (the per-CPU rows of
// docs/benchmarks.md). It reports the process's CPU time per value beside
// the wall time, which a busy machine disturbs far less.
func BenchmarkTake(b *testing.B) {
	const size = 1024
	var counter atomic.Uint64
	pinned := procpin.NewBlocks(size)
	plain := &poolBlocks{size: size}
	for _, c := range []struct {
		name string
		take func(*atomic.Uint64) uint64
	}{{"procpin", pinned.Take}, {"syncpool", plain.take}} {
		b.Run(c.name, func(b *testing.B) {
			cpu := cpuTime()
			b.RunParallel(func(pb *testing.PB) {
				var s uint64
				for pb.Next() {
					s += c.take(&counter)
				}
				atomic.AddUint64(&sinkTake, s)
			})
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime returns the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

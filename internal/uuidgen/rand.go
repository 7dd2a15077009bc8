package uuidgen

import (
	"encoding/binary"
	"math/rand/v2"
	"runtime"

	"github.com/idkit-go/idkit/internal/procpin"
)

// procRand is one ChaCha8 generator per P, each seeded from crypto/rand.
// A goroutine uses the generator of the P it is pinned to, which excludes
// every other goroutine (race builds add a lock the detector can see; see
// lock_race.go).
type procRand struct {
	shards []randShard
}

type randShard struct {
	lock
	r rand.ChaCha8
	_ [128]byte // keep neighbours' hot state apart (two cache lines: adjacent-line prefetch)
}

func newProcRand() *procRand {
	pr := &procRand{shards: make([]randShard, runtime.GOMAXPROCS(0))}
	for i := range pr.shards {
		var seed [32]byte
		mustRead(seed[:])
		pr.shards[i].r.Seed(seed)
	}
	return pr
}

// uint64 returns 64 random bits.
func (pr *procRand) uint64() uint64 {
	p := procpin.Pin()
	if p < len(pr.shards) {
		s := &pr.shards[p]
		s.acquire()
		v := s.r.Uint64()
		s.release()
		procpin.Unpin()
		return v
	}
	procpin.Unpin()
	var b [8]byte
	mustRead(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

package objectidgen

import "runtime"

// blockSize is how many counter values a shard reserves from the shared
// counter at a time. A larger block means fewer shared atomic operations but
// more values left unused in other shards when a second's window is full.
const blockSize = 64

// shard hands out the counter values [next, end) of a block reserved from
// the shared counter, all inside the window of second. Each P (scheduler
// processor) has its own shard, so goroutines on different cores do not
// write the same cache line for every ID.
//
// A shard is only touched with the goroutine pinned to its P (procpin.Pin),
// which excludes every other goroutine, so its fields need no locking. The race
// detector cannot see that exclusion, so race builds access them atomically
// (see shard_race.go).
type shard struct {
	next, end uint64
	second    int64
	_         [128 - 24]byte // keep shards on separate cache lines
}

func newShards() []shard {
	return make([]shard, runtime.GOMAXPROCS(0))
}

//go:build !race

package uuidgen

// lock does nothing: pinning to a P already gives a shard's generator to
// one goroutine at a time.
type lock struct{}

func (*lock) acquire() {}
func (*lock) release() {}

package node

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/internal/wiring"
)

// NewSnowflake returns the generator of the lease's node ID, the only
// generator that may issue on it, made with the generator options given to
// [NewLease]. Its Next fails with an error wrapping [generator.ErrFenced]
// and the lease's error while [Lease.Fence] fails; it never issues at or
// before the node's high-water mark, and it moves to a new node when the
// lease heals on one.
//
// It waits for the clock to pass the high-water mark, or returns an error
// wrapping ctx.Err() when ctx ends first, or [ErrLeaseLost] if the lease
// was lost and stopped healing before a generator existed; other errors
// are those of [generator.NewSnowflake]. A lease lost during the wait heals
// and the wait follows the new claim.
//
// One lease serves one generator, which is safe for concurrent use: a
// second call on the same lease, also while the first waits, returns an
// error wrapping [generator.ErrInvalidConfig] (two generators on one node
// would each run their own sequence and repeat IDs). Share the generator,
// or take a lease per generator. Close the lease when done.
func NewSnowflake(ctx context.Context, l *Lease) (*generator.Snowflake, error) {
	// While it waits, a lease lost meanwhile heals (it has a generator to
	// move: this one), and the wait follows the floor of the new claim.
	l.genMu.Lock()
	if l.gone {
		l.genMu.Unlock()
		return nil, fmt.Errorf("%w: node %d: the lease stopped healing", ErrLeaseLost, l.Node())
	}
	if len(l.gens) > 0 || l.waiting > 0 {
		l.genMu.Unlock()
		return nil, fmt.Errorf("%w: node %d: the lease already serves a generator; share it (it is safe for concurrent use) or take another lease", generator.ErrInvalidConfig, l.Node())
	}
	l.waiting++
	l.genMu.Unlock()
	defer func() {
		l.genMu.Lock()
		l.waiting--
		l.genMu.Unlock()
	}()
	clock := l.clock()
	for {
		// A unit past the floor, the clock is in a tick after the floor's,
		// where the first ID goes without a wait.
		floor, now := l.notBefore(), clock.Now()
		past := floor.Add(l.set.Unit)
		if !now.Before(past) {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("node: waiting for the clock to pass the high-water mark %s: %w",
				floor.UTC().Format(time.RFC3339Nano), err)
		}
		clock.Sleep(min(past.Sub(now), 50*time.Millisecond))
	}
	// The node and floor are read, and the generator joins those a heal
	// moves, under genMu, so that a heal moves it too or happened before.
	// If a heal changed the floor since the wait above, the floor makes
	// Next wait or fail for it.
	l.genMu.Lock()
	defer l.genMu.Unlock()
	if l.gone {
		return nil, fmt.Errorf("%w: node %d: the lease stopped healing", ErrLeaseLost, l.Node())
	}
	w := &wiring.Lease{Fence: l.fence, NotBefore: l.notBefore()} // Fence, one call shallower
	g, err := generator.NewSnowflake(l.Node(), append(slices.Clip(l.gen), w)...)
	if err != nil {
		return nil, err
	}
	l.gens = append(l.gens, w)
	l.track(w.LastTime)
	return g, nil
}

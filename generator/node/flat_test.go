package node_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/types"
)

// The fault tests' holders issuing flat out and their count of IDs
// returned twice. The failover cases of this file (a lapsed renewal after
// a failover, mixed TTLs, a claim held across a failover, the first claim
// lost with the table) are now cases of package nodetest's suite, which
// TestConformance runs on every store.

// flat is a holder issuing as fast as it can until halted.
type flat struct {
	lease *node.Lease
	mu    sync.Mutex
	ids   []types.Snowflake
	stop  chan struct{}
	done  chan struct{}
}

// issue makes the lease's generator and issues in the background.
func issue(t *testing.T, l *node.Lease) *flat {
	t.Helper()
	g, err := node.NewSnowflake(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	f := &flat{lease: l, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		buf := make([]types.Snowflake, 0, 64)
		for {
			select {
			case <-f.stop:
				return
			default:
			}
			for range 64 {
				if id, err := g.Next(); err == nil {
					buf = append(buf, id)
				}
			}
			f.mu.Lock()
			f.ids = append(f.ids, buf...)
			f.mu.Unlock()
			buf = buf[:0]
			time.Sleep(50 * time.Microsecond)
		}
	}()
	return f
}

func (f *flat) halt() []types.Snowflake {
	close(f.stop)
	<-f.done
	_ = f.lease.Close(context.Background())
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ids
}

// duplicates counts the IDs that more than one set holds.
func duplicates(sets ...[]types.Snowflake) (dups, total int) {
	seen := map[types.Snowflake]bool{}
	for _, s := range sets {
		for _, id := range s {
			if seen[id] {
				dups++
			}
			seen[id] = true
		}
		total += len(s)
	}
	return dups, total
}

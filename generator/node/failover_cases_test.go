package node_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testservers"
	"github.com/idkit-go/idkit/types"
)

// The fault tests' holders issuing flat out, their count of IDs returned
// twice, and a PostgreSQL primary with an asynchronous replica. The
// failover cases that were here (a lapsed renewal after a failover, mixed
// TTLs, a claim held across a failover, the first claim lost with the
// table) are cases of package nodetest's suite, which TestConformance
// runs on every store.

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

func (f *flat) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.ids)
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

// pair is a primary with an asynchronous replica fed through link.
type pair struct {
	name             string
	primary, replica string
	dsn              func(addr string) string
	driver           string
	caughtUp         func(t *testing.T)
	detach, promote  func(t *testing.T)
	kill             func(t *testing.T)
	opts             node.SQLStoreOptions
}

func pgPair(t *testing.T) pair {
	primary := testservers.StartPostgres(t)
	link := tcpproxy.Start(t, primary.Addr())
	replica := primary.Replica(t, link.Addr())
	return pair{
		name: "postgres", primary: primary.Addr(), replica: replica.Addr(), driver: "pgx",
		dsn:      func(addr string) string { return "postgres://postgres@" + addr + "/postgres?sslmode=disable" },
		caughtUp: func(t *testing.T) { primary.CaughtUp(t, replica) },
		detach:   func(t *testing.T) { link.Cut() },
		promote:  func(t *testing.T) { replica.Promote(t) },
		kill:     func(t *testing.T) { primary.Kill(t) },
	}
}

// store opens a lease store through addr, closed when t ends.
func (p pair) store(t *testing.T, addr string) node.Store {
	t.Helper()
	return failoverStoreWith(t, p.driver, p.dsn(addr), p.opts)
}

func lease(t *testing.T, s node.Store, o leaseConf) *node.Lease {
	t.Helper()
	l, err := node.NewLease(context.Background(), s, o.LeaseOptions, o.gen()...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

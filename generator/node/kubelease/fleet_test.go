package kubelease

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
)

// fleetHolder is one lease of the fleet, issuing 16 IDs at a time.
type fleetHolder struct {
	lease *node.Lease
	mu    sync.Mutex
	ids   []int64
	at    []int64   // when each ID was returned (Unix ns)
	last  time.Time // when the last ID was returned
}

// firstAfter returns how long after t the holder first returned an ID.
func (h *fleetHolder) firstAfter(t time.Time) time.Duration {
	i, _ := slices.BinarySearch(h.at, t.UnixNano()+1)
	if i == len(h.at) {
		return 0
	}
	return time.Duration(h.at[i] - t.UnixNano())
}

// TestFleet: holders on four stores, each with a client and connections
// of its own as four processes have, issue while the API server is
// restarted under them. No ID is returned twice, and every holder issues
// again after the restart. IDKIT_FLEET sets the number of holders
// (default 40), IDKIT_FLEET_RUN the run's length (default 12 s, the
// restart in the middle) and IDKIT_FLEET_TTL the leases' TTL (default
// 2 s); IDKIT_FLEET_PLAIN=1 runs without the restart. The fleet returns
// about 20,000 IDs a second in all.
func TestFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an API server")
	}
	n, run, ttl := 40, 12*time.Second, 2*time.Second
	if v, err := strconv.Atoi(os.Getenv("IDKIT_FLEET")); err == nil && v > 0 {
		n = v
	}
	if v, err := time.ParseDuration(os.Getenv("IDKIT_FLEET_RUN")); err == nil && v > 0 {
		run = v
	}
	if v, err := time.ParseDuration(os.Getenv("IDKIT_FLEET_TTL")); err == nil && v > 0 {
		ttl = v
	}
	every := max(5*time.Millisecond, time.Duration(n)*800*time.Microsecond)
	s := startAPIServer(t)
	ctx := context.Background()
	stores := make([]node.Store, 4)
	for i := range stores {
		stores[i] = storeVia(t, s, "default", nil)
	}
	hs := make([]*fleetHolder, n)
	var claims sync.WaitGroup
	start := time.Now()
	for i := range hs {
		claims.Go(func() {
			for {
				l, err := node.NewLease(ctx, stores[i%len(stores)], node.LeaseOptions{TTL: ttl})
				if err == nil {
					hs[i] = &fleetHolder{lease: l}
					return
				}
				if !errors.Is(err, node.ErrExhausted) && time.Since(start) > time.Minute {
					t.Error(err)
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
	claims.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d holders claimed in %v", n, time.Since(start).Round(time.Millisecond))
	stop := make(chan struct{})
	var issuing sync.WaitGroup
	for _, h := range hs {
		g, err := node.NewSnowflake(ctx, h.lease)
		if err != nil {
			t.Fatal(err)
		}
		issuing.Go(func() { h.issue(g, every, stop) })
	}
	begun := time.Now()
	time.Sleep(run / 2)
	restarted := time.Now()
	if os.Getenv("IDKIT_FLEET_PLAIN") == "" {
		if err := s.Restart(); err != nil {
			t.Fatal(err)
		}
		t.Logf("API server restarted in %v", time.Since(restarted).Round(time.Millisecond))
		restarted = time.Now()
	}
	time.Sleep(max(run-time.Since(begun), 3*ttl))
	close(stop)
	issuing.Wait()

	var all []int64
	fenced, again := 0, 0
	var worst time.Duration
	for _, h := range hs {
		st := h.lease.Stats()
		_ = h.lease.Close(ctx)
		all = append(all, h.ids...)
		if st.Fences > 0 {
			fenced++
		}
		if h.last.After(restarted) {
			again++
		} else {
			t.Errorf("holder on node %d issued nothing after the middle of the run (the restart): %+v", st.Node, st)
		}
		worst = max(worst, h.firstAfter(restarted))
	}
	slices.Sort(all)
	dups := 0
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			dups++
		}
	}
	t.Logf("%d holders, TTL %v, %v: %d IDs, %d returned twice; %d fenced, %d issued again after the middle of the run (the restart), the last %v after it",
		n, ttl, run, len(all), dups, fenced, again, worst.Round(time.Millisecond))
	if dups != 0 {
		t.Errorf("%d IDs returned twice", dups)
	}
}

// issue returns 16 IDs every interval until stop, keeping each with when
// it was returned.
func (h *fleetHolder) issue(g *generator.Snowflake, every time.Duration, stop chan struct{}) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		for range 16 {
			id, err := g.Next()
			if err != nil {
				break
			}
			h.mu.Lock()
			h.ids = append(h.ids, int64(id))
			h.last = time.Now()
			h.at = append(h.at, h.last.UnixNano())
			h.mu.Unlock()
		}
	}
}

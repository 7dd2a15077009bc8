package etcdlease_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/etcdlease"
	"github.com/idkit-go/idkit/types"
)

// holder is one lease and its generator, issuing IDs in a loop.
type holder struct {
	l    *node.Lease
	g    *generator.Snowflake
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	ids     []types.Snowflake
	errs    []error   // errors other than a fence's
	lastOK  time.Time // the last ID's time of issue
	failing bool
	failAt  time.Time      // when the current failing streak began
	heals   [][2]time.Time // each failing streak: its start and the next ID
}

func (h *holder) run() {
	defer close(h.done)
	for {
		select {
		case <-h.stop:
			return
		default:
		}
		id, err := h.g.Next()
		now := time.Now()
		h.mu.Lock()
		switch {
		case err == nil:
			h.ids, h.lastOK = append(h.ids, id), now
			if h.failing {
				h.heals = append(h.heals, [2]time.Time{h.failAt, now})
				h.failing = false
			}
		case errors.Is(err, generator.ErrFenced):
			if !h.failing {
				h.failing, h.failAt = true, now
			}
			if !errors.Is(err, node.ErrLeaseExpired) && !errors.Is(err, node.ErrLeaseLost) {
				h.errs = append(h.errs, err)
			}
		default:
			h.errs = append(h.errs, err)
		}
		h.mu.Unlock()
		time.Sleep(pause)
	}
}

// pause is a holder's pause between IDs.
var pause = map[bool]time.Duration{false: 5 * time.Millisecond, true: 20 * time.Millisecond}[raceEnabled]

// issuedSince reports whether the holder issued an ID after t and is not
// failing now.
func (h *holder) issuedSince(t time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.failing && h.lastOK.After(t)
}

// TestLeaderFailover: 100 holders in four processes' worth of clients
// claim and renew through etcdlease.NewStore, node.NewLease and
// node.NewSnowflake on a 3-member cluster; the leader is killed mid-run.
// No ID is issued twice, and every holder issues again after the cluster
// elects a new leader.
func TestLeaderFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster and kills its leader")
	}
	const (
		holders = 100
		clients = 4
	)
	// Renewed every TTL/3, trusted for 3/4 TTL. The race detector slows
	// the members several times over, and the test gives them more time.
	ttl := 3 * time.Second
	if raceEnabled {
		ttl = 6 * time.Second
	}
	t0 := time.Now()
	cl, err := startCluster(t.TempDir(), 3)
	require.NoError(t, err)
	t.Cleanup(cl.close)
	t.Logf("cluster started in %v", time.Since(t0).Round(time.Millisecond))

	ctx := context.Background()
	stores := make([]node.Store, clients)
	for i := range stores {
		stores[i] = etcdlease.NewStore(cl.client(t), etcdlease.StoreOptions{Prefix: "failover/"})
	}
	hs := make([]*holder, holders)
	errs := make([]error, holders)
	var wg sync.WaitGroup
	t0 = time.Now()
	for i := range hs {
		wg.Go(func() {
			l, err := node.NewLease(ctx, stores[i%clients], node.LeaseOptions{TTL: ttl})
			for try := 0; errors.Is(err, rpctypes.ErrTimeout) && try < 3; try++ {
				// A machine busy enough times out the members' proposals
				// while 100 claims start at once: claim again.
				l, err = node.NewLease(ctx, stores[i%clients], node.LeaseOptions{TTL: ttl})
			}
			if err != nil {
				errs[i] = err
				return
			}
			g, err := node.NewSnowflake(ctx, l)
			if err != nil {
				l.Close(ctx)
				errs[i] = err
				return
			}
			hs[i] = &holder{l: l, g: g, stop: make(chan struct{}), done: make(chan struct{})}
		})
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, h := range hs {
			if h != nil {
				h.l.Close(ctx)
			}
		}
	})
	require.NoError(t, errors.Join(errs...))
	t.Logf("%d holders claimed in %v", holders, time.Since(t0).Round(time.Millisecond))
	for _, h := range hs {
		go h.run()
	}
	stopAll := func() {
		for _, h := range hs {
			select {
			case <-h.stop:
			default:
				close(h.stop)
			}
			<-h.done
		}
	}
	t.Cleanup(stopAll)

	time.Sleep(ttl / 2) // a renewal of every lease before the kill
	lead := cl.leader()
	require.GreaterOrEqual(t, lead, 0, "a leader")
	kill := time.Now()
	cl.kill(lead)
	t.Logf("killed the leader, member %d, in %v", lead, time.Since(kill).Round(time.Millisecond))
	deadline := kill.Add(6 * ttl)
	for cl.leader() < 0 {
		require.True(t, time.Now().Before(deadline), "no new leader")
		time.Sleep(10 * time.Millisecond)
	}
	elected := time.Now()
	t.Logf("member %d leads %v after the kill", cl.leader(), elected.Sub(kill).Round(time.Millisecond))

	// Every holder heals: a renewal that began after the election
	// succeeded, and the holder issued an ID after it and is not failing.
	for _, h := range hs {
		for {
			r := h.l.Stats().LastRenewal
			if r.After(elected) && h.issuedSince(r) {
				break
			}
			require.True(t, time.Now().Before(deadline), "a holder on node %d did not heal: %v", h.l.Node(), h.l.Fence())
			time.Sleep(20 * time.Millisecond)
		}
	}
	t.Logf("every holder renewed after the election and issued again %v after the kill", time.Since(kill).Round(time.Millisecond))
	time.Sleep(ttl / 2) // and keeps issuing
	stopAll()

	seen := make(map[types.Snowflake]struct{})
	var total, dups, fenced int
	var heals []time.Duration
	var reclaims uint64
	for _, h := range hs {
		h.mu.Lock()
		require.Empty(t, h.errs, "errors other than the fence's")
		for _, id := range h.ids {
			if _, ok := seen[id]; ok {
				dups++
			}
			seen[id] = struct{}{}
		}
		total += len(h.ids)
		if len(h.heals) > 0 {
			fenced++
		}
		for _, hl := range h.heals {
			if hl[0].After(kill) {
				heals = append(heals, hl[1].Sub(kill))
			}
		}
		h.mu.Unlock()
		reclaims += h.l.Stats().Reclaims
	}
	slices.Sort(heals)
	if len(heals) > 0 {
		t.Logf("%d holders fenced after the kill; their first ID again came after the kill: p50 %v, max %v; %d re-claims",
			fenced, heals[len(heals)/2].Round(time.Millisecond), heals[len(heals)-1].Round(time.Millisecond), reclaims)
	} else {
		t.Logf("no holder fenced; %d re-claims", reclaims)
	}
	t.Logf("%d IDs from %d holders, %d duplicates", total, holders, dups)
	require.Zero(t, dups, "duplicate IDs")
	require.NotZero(t, total)
}

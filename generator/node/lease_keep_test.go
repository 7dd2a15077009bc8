package node_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/internal/testclock"
	"github.com/idkit-go/idkit/types"
)

// memRecord is one node's record in a memStore.
type memRecord struct {
	owner   string
	expires time.Time
	mark    int64
	version int64
}

// memStore is a node.Store in memory that can fail over: its identity
// changes, and a failover may take the records back to an earlier copy
// (writes lost). It keeps node.Store's contract for the engine's tests;
// noKept makes it a store that cannot tell a kept record (Kept never set).
type memStore struct {
	mu      sync.Mutex
	ident   string
	gen     int
	recs    map[int64]memRecord
	horizon time.Duration
	wide    int64 // the store-wide mark
	pending bool  // a failover no claim has noticed yet
	noKept  bool
	// slowUntil holds every claim after a loss until then (a slow store).
	slowUntil time.Time
	// renewThenFail: the next renewal is applied, then the store fails
	// over and the renewal's answer is lost (the primary died after its
	// standby acknowledged the write). claimThenFail: the next claim after
	// a loss is applied and its answer lost.
	renewThenFail, claimThenFail     bool
	lostClaims, keptClaims, renewals atomic.Int64
}

func newMemStore() *memStore { return &memStore{ident: "mem-0", recs: map[int64]memRecord{}} }

// failover moves the store to a new identity; with lose, node n's record
// goes back to what it was at snap (nil: kept as it is).
func (s *memStore) failover(restore map[int64]memRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	s.ident = fmt.Sprintf("mem-%d", s.gen)
	s.pending = true
	for n, r := range restore {
		s.recs[n] = r
	}
}

func (s *memStore) snapshot() map[int64]memRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := make(map[int64]memRecord, len(s.recs))
	for n, r := range s.recs {
		c[n] = r
	}
	return c
}

func (s *memStore) set(n int64, r memRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs[n] = r
}

func (s *memStore) Claim(ctx context.Context, c node.Claim) (node.Claimed, error) {
	s.mu.Lock()
	until := s.slowUntil
	s.mu.Unlock()
	if d := time.Until(until); c.Lost && d > 0 {
		select {
		case <-ctx.Done():
			return node.Claimed{}, ctx.Err()
		case <-time.After(d):
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return node.Claimed{}, err
	}
	now := time.Now()
	free := func(n int64) bool {
		r, ok := s.recs[n]
		return !ok || r.owner == "" || !now.Before(r.expires) || r.owner == c.Owner
	}
	n := int64(-1)
	if c.Prefer >= 0 && c.Prefer <= c.MaxNode && free(c.Prefer) {
		n = c.Prefer
	} else {
		for i := int64(0); i <= c.MaxNode; i++ {
			if r, ok := s.recs[i]; !ok || r.owner == "" || !now.Before(r.expires) {
				n = i
				break
			}
		}
	}
	if n < 0 {
		return node.Claimed{}, fmt.Errorf("%w: mem", node.ErrExhausted)
	}
	r := s.recs[n]
	kept := !s.noKept && n == c.Prefer && r.owner == c.Owner && c.Seen.Version > 0 && r.version >= c.Seen.Version
	floor := max(r.mark, s.wide)
	s.horizon = max(s.horizon, c.Horizon)
	forgot := c.Lost || s.pending
	if forgot {
		floor = max(floor, now.Add(s.horizon).UnixNano())
		s.wide = floor
		s.pending = false
	} else if c.Lapsed {
		floor = max(floor, now.Add(s.horizon).UnixNano())
	}
	r = memRecord{owner: c.Owner, expires: now.Add(c.TTL), mark: max(r.mark, c.Bound), version: r.version + 1}
	s.recs[n] = r
	if c.Lost {
		s.lostClaims.Add(1)
		if kept {
			s.keptClaims.Add(1)
		}
		if s.claimThenFail {
			s.claimThenFail = false
			return node.Claimed{}, errAnswerLost
		}
	}
	return node.Claimed{Node: n, Floor: floor, Seen: node.Seen{Ident: s.ident, Version: r.version}, Forgot: forgot, Kept: kept}, nil
}

func (s *memStore) Renew(ctx context.Context, q node.Renewal) (node.Seen, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return node.Seen{}, err
	}
	r, ok := s.recs[q.Node]
	switch {
	case q.Seen.Ident != s.ident || !ok || r.version < q.Seen.Version:
		return node.Seen{}, fmt.Errorf("%w: mem: node %d", node.ErrForgot, q.Node)
	case r.owner != q.Owner:
		return node.Seen{}, fmt.Errorf("%w: mem: node %d", node.ErrLeaseLost, q.Node)
	case !time.Now().Before(r.expires):
		return node.Seen{}, fmt.Errorf("%w: %w: mem: node %d", node.ErrLeaseLost, node.ErrLapsed, q.Node)
	}
	s.horizon = max(s.horizon, q.Horizon)
	r = memRecord{owner: r.owner, expires: time.Now().Add(q.TTL), mark: max(r.mark, q.Bound), version: r.version + 1}
	s.recs[q.Node] = r
	s.renewals.Add(1)
	if s.renewThenFail {
		s.renewThenFail = false
		s.gen++
		s.ident = fmt.Sprintf("mem-%d", s.gen)
		s.pending = true
		return node.Seen{}, errAnswerLost
	}
	return node.Seen{Ident: s.ident, Version: r.version}, nil
}

// errAnswerLost is a request's error when the store applied it but its
// answer never came.
var errAnswerLost = errors.New("connection reset by peer")

func (s *memStore) Release(ctx context.Context, q node.Release) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[q.Node]
	if !ok || r.owner != q.Owner {
		return nil
	}
	mark := max(r.mark, q.Mark)
	if q.Exact {
		mark = q.Mark
	}
	s.recs[q.Node] = memRecord{mark: mark, version: r.version + 1}
	return nil
}

// keepOpts are the options of the keep tests: a failover is noticed
// within RenewEvery, and trust lasts TTL - Margin.
var keepOpts = node.LeaseOptions{TTL: 1500 * time.Millisecond, RenewEvery: 200 * time.Millisecond, Margin: 300 * time.Millisecond}

// flatOut calls Next flat out until stopped, keeping every ID and counting
// the refusals.
type flatOut struct {
	ids     []types.Snowflake
	fenced  int
	stop    chan struct{}
	done    chan struct{}
	firstOK chan time.Time // when the first ID after a refusal came
}

func issueFlat(g *generator.Snowflake) *flatOut {
	is := &flatOut{stop: make(chan struct{}), done: make(chan struct{}), firstOK: make(chan time.Time, 1)}
	go func() {
		defer close(is.done)
		refused := false
		for {
			select {
			case <-is.stop:
				return
			default:
			}
			id, err := g.Next()
			switch {
			case err == nil:
				is.ids = append(is.ids, id)
				if refused {
					refused = false
					select {
					case is.firstOK <- time.Now():
					default:
					}
				}
			case errors.Is(err, generator.ErrFenced):
				is.fenced++
				refused = true
				time.Sleep(time.Millisecond)
			default:
				panic(err)
			}
		}
	}()
	return is
}

func (is *flatOut) halt() { close(is.stop); <-is.done }

// waitFor polls cond every 5 ms for up to d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "%s: not within %v", what, d)
		time.Sleep(5 * time.Millisecond)
	}
}

// TestLeaseKeptAcrossLosslessFailover: a failover that kept the lease's
// record (the store's identity changed, nothing lost) costs no refusal:
// the renewal's ErrForgot is followed, while the lease is trusted, by a
// claim after a loss that finds the record as the lease saw it, and the
// generator issues on through it, on the same node and sequence. Also
// when the primary died after its standby acknowledged a renewal whose
// answer was lost: the new primary holds the record at a version past
// the one the lease saw, written by the lease itself.
func TestLeaseKeptAcrossLosslessFailover(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		fault func(s *memStore)
	}{
		{"identity-changed", func(s *memStore) { s.failover(nil) }},
		{"renewal-answer-lost", func(s *memStore) {
			s.mu.Lock()
			s.renewThenFail = true
			s.mu.Unlock()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newMemStore()
			ctx := context.Background()
			l, err := node.NewLease(ctx, s, keepOpts, generator.WithClock(testclock.Offset{}))
			require.NoError(t, err)
			defer l.Close(ctx)
			g, err := node.NewSnowflake(ctx, l)
			require.NoError(t, err)
			is := issueFlat(g)
			time.Sleep(2 * keepOpts.RenewEvery)
			for range 3 {
				n := s.keptClaims.Load()
				c.fault(s)
				// The next renewal, at most RenewEvery away, notices.
				waitFor(t, 2*keepOpts.RenewEvery+time.Second, "a kept claim", func() bool { return s.keptClaims.Load() > n })
				time.Sleep(keepOpts.RenewEvery)
			}
			is.halt()
			st := l.Stats()
			require.Zero(t, is.fenced, "no ID refused across the failovers")
			require.Zero(t, st.Fences)
			require.Zero(t, st.Reclaims)
			require.Equal(t, node.LeaseHeld, st.State)
			require.NoError(t, l.Fence())
			for i := 1; i < len(is.ids); i++ {
				require.Less(t, is.ids[i-1], is.ids[i], "one sequence")
			}
			t.Logf("%d ids, %d kept claims, %d renewals", len(is.ids), s.keptClaims.Load(), s.renewals.Load())
		})
	}
}

// TestLeaseForgotNotKept: every failover the store cannot prove kept the
// lease's record waits out the horizon, as before: the record went back
// (the last renewal lost), the store cannot tell (noKept), another holder
// took the node meanwhile, or the claim after the loss is answered only
// after the lease's trust ended.
func TestLeaseForgotNotKept(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// fault fails the store over; node is the lease's, before a
		// snapshot from before its last renewal.
		fault func(s *memStore, n int64, before map[int64]memRecord)
		// wait: the heal waits out the horizon (else another node at once).
		wait bool
	}{
		{"record-went-back", func(s *memStore, n int64, before map[int64]memRecord) {
			s.failover(map[int64]memRecord{n: before[n]})
		}, true},
		{"store-cannot-tell", func(s *memStore, n int64, _ map[int64]memRecord) {
			s.noKept = true
			s.failover(nil)
		}, true},
		{"claim-answered-late", func(s *memStore, n int64, _ map[int64]memRecord) {
			// Past the lease's trust, which ends TTL - Margin after its
			// last renewal at the latest.
			s.mu.Lock()
			s.slowUntil = time.Now().Add(keepOpts.TTL)
			s.mu.Unlock()
			s.failover(nil)
		}, true},
		// The claim to keep the node is applied but its answer lost: the
		// record then names the lease at a version past the one it saw,
		// which its own claim may have written after another owner's
		// tenure. The lease does not take Kept from the retry.
		{"claim-answer-lost", func(s *memStore, n int64, _ map[int64]memRecord) {
			s.mu.Lock()
			s.claimThenFail = true
			s.mu.Unlock()
			s.failover(nil)
		}, true},
		{"taken-meanwhile", func(s *memStore, n int64, _ map[int64]memRecord) {
			s.failover(nil)
			s.set(n, memRecord{owner: "thief", expires: time.Now().Add(time.Hour), version: 1 << 20})
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newMemStore()
			ctx := context.Background()
			spec := generator.Twitter().Spec()
			spec.NodeBits, spec.Name = 1, "keep1"
			lay, err := generator.NewLayout(spec)
			require.NoError(t, err)
			l, err := node.NewLease(ctx, s, keepOpts, generator.WithLayout(lay), generator.WithClock(testclock.Offset{}))
			require.NoError(t, err)
			defer l.Close(ctx)
			g, err := node.NewSnowflake(ctx, l)
			require.NoError(t, err)
			is := issueFlat(g)
			n := l.Node()
			before := s.snapshot()
			r := s.renewals.Load()
			waitFor(t, 2*keepOpts.RenewEvery+time.Second, "a renewal", func() bool { return s.renewals.Load() > r })
			failed := time.Now()
			c.fault(s, n, before)
			// The heal's claim waits the horizon (TTL + unit +
			// MaxClockOffset), after the lease's trust ran out at most
			// TTL - Margin after the failover; two RenewEvery and a
			// second spare a busy machine.
			horizon := keepOpts.TTL + time.Millisecond + 500*time.Millisecond
			waitFor(t, keepOpts.TTL+horizon+2*keepOpts.RenewEvery+time.Second, "a re-claim", func() bool { return l.Stats().Reclaims == 1 })
			var first time.Time
			select {
			case first = <-is.firstOK:
			case <-time.After(time.Second):
				t.Fatal("no ID after the re-claim")
			}
			is.halt()
			require.Positive(t, is.fenced, "the lease fenced")
			if c.wait {
				require.Equal(t, n, l.Node())
				require.GreaterOrEqual(t, first.Sub(failed), horizon, "the first ID after the loss waits the horizon")
			} else {
				require.NotEqual(t, n, l.Node())
			}
			seen := map[types.Snowflake]bool{}
			for _, id := range is.ids {
				require.False(t, seen[id], "id %d twice", id)
				seen[id] = true
			}
			t.Logf("first ID %v after the failover", first.Sub(failed).Round(time.Millisecond))
		})
	}
}

// downStore is a memStore whose every call, while down, hangs until its
// context ends (a cut link: the request is never answered, even after the
// link is back) or fails at once (refused: the server stopped).
type downStore struct {
	*memStore
	down, refuse atomic.Bool
}

var errRefused = errors.New("connection refused")

func (s *downStore) wait(ctx context.Context) error {
	if !s.down.Load() {
		return nil
	}
	if s.refuse.Load() {
		return errRefused
	}
	<-ctx.Done()
	return ctx.Err()
}

func (s *downStore) Claim(ctx context.Context, c node.Claim) (node.Claimed, error) {
	if err := s.wait(ctx); err != nil {
		return node.Claimed{}, err
	}
	return s.memStore.Claim(ctx, c)
}

func (s *downStore) Renew(ctx context.Context, r node.Renewal) (node.Seen, error) {
	if err := s.wait(ctx); err != nil {
		return node.Seen{}, err
	}
	return s.memStore.Renew(ctx, r)
}

// TestLeaseRidesThroughOutage: an outage of the store of MaxOutage,
// starting just after a renewal, costs no refusal, whether requests hang
// (a cut link) or are refused (the server stopped).
func TestLeaseRidesThroughOutage(t *testing.T) {
	t.Parallel()
	// RenewEvery 2 s: a renewal is abandoned after 1 s; TTL 5.2 s. The
	// outage covers the renewal due RenewEvery after the last and its
	// retries.
	o := node.LeaseOptions{MaxOutage: 3 * time.Second, RenewEvery: 2 * time.Second, Margin: 200 * time.Millisecond}
	for _, refuse := range []bool{false, true} {
		t.Run(fmt.Sprintf("refuse=%v", refuse), func(t *testing.T) {
			t.Parallel()
			s := &downStore{memStore: newMemStore()}
			s.refuse.Store(refuse)
			ctx := context.Background()
			logs := newLogRecords()
			o := o
			o.Logger = logs.logger()
			l, err := node.NewLease(ctx, s, o, generator.WithClock(testclock.Offset{}))
			require.NoError(t, err)
			defer l.Close(ctx)
			defer func() {
				if t.Failed() {
					t.Logf("log:\n%s", strings.Join(logs.lines(), "\n"))
				}
			}()
			require.Equal(t, 5200*time.Millisecond, l.Options().TTL)
			g, err := node.NewSnowflake(ctx, l)
			require.NoError(t, err)
			is := issueFlat(g)
			r := s.renewals.Load()
			waitFor(t, o.RenewEvery+time.Second, "a renewal", func() bool { return s.renewals.Load() > r })
			s.down.Store(true)
			time.Sleep(o.MaxOutage)
			s.down.Store(false)
			// Trust ends RenewEvery after the outage; a renewal lands by then.
			r = s.renewals.Load()
			waitFor(t, o.RenewEvery+time.Second, "a renewal after the outage", func() bool { return s.renewals.Load() > r })
			is.halt()
			require.Zero(t, is.fenced, "no ID refused through the outage")
			require.Zero(t, l.Stats().Fences)
			require.Positive(t, l.Stats().Failures, "renewals failed during the outage")
		})
	}
}

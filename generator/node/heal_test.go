package node_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/types"
)

// logRecords captures a lease's log records.
type logRecords struct {
	mu  sync.Mutex
	buf bytes.Buffer
	h   slog.Handler
}

func newLogRecords() *logRecords {
	r := &logRecords{}
	r.h = slog.NewTextHandler(&lockedWriter{r}, &slog.HandlerOptions{Level: slog.LevelDebug})
	return r
}

type lockedWriter struct{ r *logRecords }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	return w.r.buf.Write(p)
}

func (r *logRecords) logger() *slog.Logger { return slog.New(r.h) }

// lines returns the records logged so far, one per line.
func (r *logRecords) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Split(strings.TrimSpace(r.buf.String()), "\n")
}

// count returns how many records contain every one of parts.
func (r *logRecords) count(parts ...string) int {
	n := 0
	for _, l := range r.lines() {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			n++
		}
	}
	return n
}

// issuer calls g.Next in a loop until stopped, keeping every ID and when
// the first ID after a given moment came.
type issuer struct {
	g    *generator.Snowflake
	stop chan struct{}
	wg   sync.WaitGroup

	mu       sync.Mutex
	ids      []types.Snowflake
	fenced   int
	errs     []error
	lastOK   time.Time
	firstOKs []time.Time // the first success after each failure streak
	failing  bool
}

func startIssuer(g *generator.Snowflake) *issuer {
	is := &issuer{g: g, stop: make(chan struct{})}
	is.wg.Go(func() {
		for {
			select {
			case <-is.stop:
				return
			default:
			}
			id, err := g.Next()
			now := time.Now()
			is.mu.Lock()
			switch {
			case err == nil:
				is.ids, is.lastOK = append(is.ids, id), now
				if is.failing {
					is.firstOKs = append(is.firstOKs, now)
				}
				is.failing = false
			case errors.Is(err, generator.ErrFenced):
				is.fenced++
				is.failing = true
				if !errors.Is(err, node.ErrLeaseLost) && !errors.Is(err, node.ErrLeaseExpired) && !errors.Is(err, node.ErrLeaseClosed) {
					is.errs = append(is.errs, err)
				}
			default:
				is.errs = append(is.errs, err)
			}
			is.mu.Unlock()
			time.Sleep(100 * time.Microsecond)
		}
	})
	return is
}

func (is *issuer) halt() {
	close(is.stop)
	is.wg.Wait()
}

// okSince returns the first success at or after t, or the zero time.
func (is *issuer) okSince(t time.Time) time.Time {
	is.mu.Lock()
	defer is.mu.Unlock()
	for _, ok := range is.firstOKs {
		if !ok.Before(t) {
			return ok
		}
	}
	return time.Time{}
}

func requireUnique(t *testing.T, sets ...[]types.Snowflake) int {
	t.Helper()
	seen := map[types.Snowflake]bool{}
	for _, s := range sets {
		for _, id := range s {
			require.False(t, seen[id], "id %d repeated", id)
			seen[id] = true
		}
	}
	return len(seen)
}

// healOptions: four node IDs, a short TTL; healing is measured in units of
// RenewEvery, so the test's timing follows from these values.
func healOptions(t *testing.T, log *slog.Logger) leaseConf {
	return leaseConf{Layout: layout(t, 2), LeaseOptions: node.LeaseOptions{TTL: 800 * time.Millisecond, RenewEvery: 150 * time.Millisecond,
		Margin: 200 * time.Millisecond, Logger: log}}
}

// healSlack absorbs a busy machine: scheduling delays, a new connection.
const healSlack = 5 * time.Second

// TestLeaseHealsAfterTakeover: the holder's link is blackholed for longer
// than the TTL while another holder claims its node; once the link is back
// the holder's lease heals on another node and the SAME generator object
// issues again, with no ID repeated over both holders' IDs. The logs and
// stats say what happened.
func TestLeaseHealsAfterTakeover(t *testing.T) {
	t.Parallel()
	for _, s := range proxiedStores() {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			ps := s.make(t)
			ctx := context.Background()
			logs := newLogRecords()
			o := healOptions(t, logs.logger())
			a, err := ps.viaFn(ctx, o)
			require.NoError(t, err)
			defer a.Close(ctx)
			require.Equal(t, int64(0), a.Node())
			ga, err := node.NewSnowflake(ctx, a)
			require.NoError(t, err)
			// The other nodes are held, so the successor can only get
			// node 0, once a's lease has expired.
			fo := o
			fo.Logger = nil
			var fillers []*node.Lease
			for range 3 {
				f, err := ps.direct(ctx, fo)
				require.NoError(t, err)
				_, err = node.NewSnowflake(ctx, f) // so that Close records an exact mark
				require.NoError(t, err)
				fillers = append(fillers, f)
			}
			defer func() {
				for _, f := range fillers {
					_ = f.Close(ctx)
				}
			}()

			is := startIssuer(ga)
			time.Sleep(2 * o.RenewEvery)
			ps.proxy.Blackhole()
			cut := time.Now()
			var b *node.Lease
			for b == nil {
				require.Less(t, time.Since(cut), 3*o.TTL+healSlack, "the successor never got the node")
				l, err := ps.direct(ctx, fo)
				if errors.Is(err, node.ErrExhausted) {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				require.NoError(t, err)
				b = l
			}
			defer b.Close(ctx)
			if b.Node() != 0 {
				// A filler lapsed on a busy machine and freed its node
				// first: correct, but not the scenario this test follows.
				t.Logf("%s: the successor got node %d: a filler lapsed on a busy machine", s.name, b.Node())
				is.halt()
				requireUnique(t, is.ids)
				return
			}
			gb, err := node.NewSnowflake(ctx, b)
			require.NoError(t, err)
			bIDs := nextIDs(t, gb, 500, healSlack)
			st := a.Stats()
			require.Contains(t, []node.LeaseState{node.LeaseExpired}, st.State, "%+v", st)
			require.Zero(t, st.FenceIn)
			_, err = ga.Next()
			require.ErrorIs(t, err, generator.ErrFenced)
			require.ErrorIs(t, err, node.ErrLeaseExpired)

			// Free node 3, then restore the link: a's renewal finds node
			// 0 taken, and a claims node 3.
			require.NoError(t, fillers[2].Close(ctx))
			fillers = fillers[:2]
			back := time.Now()
			ps.proxy.Restore()
			var healed time.Time
			for healed.IsZero() {
				require.Less(t, time.Since(back), 2*o.RenewEvery+healSlack, "the holder never issued again")
				time.Sleep(5 * time.Millisecond)
				healed = is.okSince(back)
			}
			t.Logf("%s: IDs again %v after the link came back (RenewEvery %v)", s.name, healed.Sub(back), o.RenewEvery)
			bIDs = append(bIDs, nextIDs(t, gb, 500, healSlack)...)
			time.Sleep(20 * time.Millisecond)
			is.halt()

			// Safety holds whatever the load: no ID repeated.
			require.Empty(t, is.errs)
			n := requireUnique(t, is.ids, bIDs)
			require.Equal(t, len(is.ids)+len(bIDs), n)
			st = a.Stats()
			if st.Fences != 1 || st.Reclaims != 1 || st.State != node.LeaseHeld || st.Node != 3 {
				// A machine too busy to renew in time let the healed lease
				// lapse again, a correct fence: the exact account below
				// holds only for one fence and one heal.
				t.Logf("%s: lease fenced again on a busy machine: %+v", s.name, st)
				require.NoError(t, a.Close(ctx))
				return
			}
			require.Equal(t, int64(3), a.Node())
			require.Equal(t, int64(3), ga.Node(), "the same generator moved to the new node")
			last, err := o.Layout.Decompose(is.ids[len(is.ids)-1])
			require.NoError(t, err)
			require.Equal(t, int64(3), last.Node)

			require.Equal(t, node.LeaseHeld, st.State)
			require.Equal(t, int64(3), st.Node)
			require.Equal(t, uint64(1), st.Reclaims)
			require.Equal(t, uint64(1), st.Fences, "expired, then lost: one fence")
			require.Positive(t, st.Failures)
			require.Positive(t, st.FenceIn)
			require.LessOrEqual(t, st.FenceIn, o.TTL-o.Margin)
			gs := ga.Stats()
			require.Equal(t, uint64(len(is.ids)), gs.Issued, "exact once quiescent")
			require.Equal(t, int64(3), gs.Node)
			require.Equal(t, uint64(is.fenced)+1, gs.Fenced, "the issuer's refusals and the one above")

			require.NoError(t, a.Close(ctx))
			require.Equal(t, 1, logs.count("level=INFO", `msg="lease claimed"`, "node=0"), logs.lines())
			require.Equal(t, 1, logs.count("level=WARN", `msg="lease renewals failing"`, "node=0"), logs.lines())
			require.Equal(t, 1, logs.count("level=WARN", `msg="lease fenced: not renewed in time"`), logs.lines())
			require.Equal(t, 1, logs.count("level=WARN", `msg="lease lost"`, "node=0"), logs.lines())
			require.Equal(t, 1, logs.count("level=INFO", `msg="lease re-claimed"`, "old_node=0", "node=3"), logs.lines())
			require.Equal(t, 1, logs.count("level=INFO", `msg="lease closed"`, "node=3"), logs.lines())
			// On a busy machine a claim can outlast TTL - Margin and be
			// retried: that streak is logged once.
			retried := logs.count("level=WARN", `msg="lease re-claim failing"`)
			require.LessOrEqual(t, retried, 1, logs.lines())
			require.Equal(t, 6+retried, len(logs.lines()), logs.lines())
			require.Equal(t, len(logs.lines()), logs.count("owner="+a.Stats().Owner))
		})
	}
}

// TestLeaseHealsAfterLapse: a partition longer than the TTL with nobody
// taking the node: the first renewal that gets through finds the record
// expired, which cannot prove nobody claimed the node and was forgotten
// meanwhile, so the lease heals on the same node by a claim whose IDs
// start after the store's clock plus the horizon (TTL + BorrowAhead + unit
// + MaxClockOffset), without a store-wide mark.
func TestLeaseHealsAfterLapse(t *testing.T) {
	t.Parallel()
	for _, s := range proxiedStores() {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			ps := s.make(t)
			ctx := context.Background()
			logs := newLogRecords()
			o := healOptions(t, logs.logger())
			a, err := ps.viaFn(ctx, o)
			require.NoError(t, err)
			defer a.Close(ctx)
			ga, err := node.NewSnowflake(ctx, a)
			require.NoError(t, err)
			is := startIssuer(ga)
			time.Sleep(2 * o.RenewEvery)
			ps.proxy.Blackhole()
			time.Sleep(o.TTL + o.RenewEvery)
			require.Equal(t, node.LeaseExpired, a.Stats().State)
			back := time.Now()
			ps.proxy.Restore()
			horizon := o.TTL + o.Layout.Spec().Unit + 500*time.Millisecond
			var healed time.Time
			for healed.IsZero() {
				require.Less(t, time.Since(back), 2*o.RenewEvery+horizon+healSlack, "the holder never issued again")
				time.Sleep(5 * time.Millisecond)
				healed = is.okSince(back)
			}
			t.Logf("%s: IDs again %v after the link came back (RenewEvery %v, horizon %v)", s.name, healed.Sub(back), o.RenewEvery, horizon)
			time.Sleep(10 * time.Millisecond)
			is.halt()
			require.Empty(t, is.errs)
			requireUnique(t, is.ids)
			st := a.Stats()
			require.Equal(t, node.LeaseHeld, st.State)
			require.Equal(t, int64(0), st.Node)
			// The SQL store re-claims the node (the expired row cannot prove
			// nobody claimed it meanwhile); a store that can prove it renews.
			require.LessOrEqual(t, st.Reclaims, uint64(1))
			require.Equal(t, int(st.Reclaims), logs.count("level=INFO", `msg="lease re-claimed"`, "old_node=0", "node=0"), logs.lines())
		})
	}
}

// TestLeaseCloseDuringHeal: a lost lease that cannot re-claim (every node
// held) keeps trying; Close returns within its bound and releases nothing.
func TestLeaseCloseDuringHeal(t *testing.T) {
	t.Parallel()
	for _, sm := range stores() {
		t.Run(sm.name, func(t *testing.T) {
			s := sm.make(t)
			ctx := context.Background()
			logs := newLogRecords()
			o := short(t, 0)
			o.Logger = logs.logger()
			l, err := s.lease(ctx, o)
			require.NoError(t, err)
			g, err := node.NewSnowflake(ctx, l)
			require.NoError(t, err)
			nextID(t, g, healSlack)
			s.steal(t, 0)
			requireFenced(t, g, node.ErrLeaseLost, o.RenewEvery+healSlack)
			// The heal retries every RenewEvery; wait for a failed try.
			deadline := time.Now().Add(2*o.RenewEvery + healSlack)
			// The count is raised before the record is written: wait for both.
			for l.Stats().Failures == 0 || logs.count("level=WARN", `msg="lease re-claim failing"`) == 0 {
				require.True(t, time.Now().Before(deadline), "no re-claim was tried")
				time.Sleep(10 * time.Millisecond)
			}
			require.Equal(t, node.LeaseLost, l.Stats().State)
			// One streak, logged once (its first error is "exhausted", or a
			// timeout on a machine too busy to answer in TTL - Margin).
			require.Equal(t, 1, logs.count("level=WARN", `msg="lease re-claim failing"`), logs.lines())
			start := time.Now()
			require.NoError(t, l.Close(ctx))
			require.Less(t, time.Since(start), l.CloseTimeout()+time.Second)
			_, err = g.Next()
			require.ErrorIs(t, err, node.ErrLeaseClosed)
			require.Equal(t, node.LeaseClosed, l.Stats().State)
		})
	}
}

// TestLeaseFenceOnlyNotHealed: a lease used without NewSnowflake (Fence
// wired to the caller's own generator) cannot move that generator, so a
// lost lease stays lost.
func TestLeaseFenceOnlyNotHealed(t *testing.T) {
	t.Parallel()
	s := sqlite(t)
	ctx := context.Background()
	logs := newLogRecords()
	o := short(t, 2)
	o.Logger = logs.logger()
	l, err := s.lease(ctx, o)
	require.NoError(t, err)
	defer l.Close(ctx)
	s.steal(t, l.Node())
	deadline := time.Now().Add(o.RenewEvery + healSlack)
	for !errors.Is(l.Fence(), node.ErrLeaseLost) {
		require.True(t, time.Now().Before(deadline))
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(3 * o.RenewEvery)
	require.ErrorIs(t, l.Fence(), node.ErrLeaseLost)
	require.Zero(t, l.Stats().Reclaims)
	require.Equal(t, 1, logs.count("level=ERROR", "lease lost for good"), logs.lines())
}

// scriptedStore is a Store whose answers the test sets: it tests the
// lease's handling of a floor ahead of the clock, which the real stores
// only give with clocks out of step.
type scriptedStore struct {
	mu       sync.Mutex
	lost     bool      // Renew of node 0 reports ErrLeaseLost
	down     time.Time // until then, Renew of node 0 fails as an unreachable store would
	floor    int64     // the floor a re-claim returns (node 1)
	prefers  []int64
	losts    []bool // each claim's Lost
	released []int64
}

func (s *scriptedStore) Claim(ctx context.Context, c node.Claim) (node.Claimed, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prefers = append(s.prefers, c.Prefer)
	s.losts = append(s.losts, c.Lost)
	if !s.lost {
		return node.Claimed{}, nil
	}
	return node.Claimed{Node: 1, Floor: s.floor}, nil
}

func (s *scriptedStore) Renew(ctx context.Context, r node.Renewal) (node.Seen, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Node == 0 && time.Now().Before(s.down) {
		return node.Seen{}, errors.New("connection refused")
	}
	if s.lost && r.Node == 0 {
		return node.Seen{}, fmt.Errorf("%w: node 0 taken", node.ErrLeaseLost)
	}
	return r.Seen, nil
}

func (s *scriptedStore) Release(ctx context.Context, r node.Release) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.released = append(s.released, r.Node)
	return nil
}

// scriptedLease returns a lease with options o on a new scriptedStore
// (closed when t ends), and its generator, which has issued an ID on node 0.
func scriptedLease(t *testing.T, o leaseConf) (*scriptedStore, *node.Lease, *generator.Snowflake) {
	s := &scriptedStore{}
	ctx := context.Background()
	l, err := node.NewLease(ctx, s, o.LeaseOptions, o.gen()...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close(ctx) })
	g, err := node.NewSnowflake(ctx, l)
	require.NoError(t, err)
	g.MustNext()
	return s, l, g
}

// TestLeaseHealFloorAhead: the node a heal claims has a floor ahead of the
// clock (a previous holder's clock ran ahead). The lease opens the fence
// only once the clock has passed it; meanwhile Next fails at once with
// ErrFenced and ErrLeaseLost, never waiting, and the first ID after the
// heal is above the floor.
func TestLeaseHealFloorAhead(t *testing.T) {
	t.Parallel()
	o := short(t, 1)
	s, l, g := scriptedLease(t, o)
	ahead := 2 * o.TTL // well beyond the backward tolerance and the TTL
	floor := time.Now().Add(ahead)
	s.mu.Lock()
	s.lost, s.floor = true, floor.UnixNano()
	s.mu.Unlock()
	var first types.Snowflake
	deadline := time.Now().Add(ahead + o.RenewEvery + healSlack)
	refused := 0
	for first == 0 {
		require.True(t, time.Now().Before(deadline), "never healed: %+v", l.Stats())
		id, err := g.Next()
		if err != nil {
			require.ErrorIs(t, err, generator.ErrFenced)
			require.ErrorIs(t, err, node.ErrLeaseLost)
			refused++
			time.Sleep(time.Millisecond)
			continue
		}
		if g.Node() == 1 {
			first = id
		}
	}
	require.Positive(t, refused)
	require.Zero(t, g.Stats().TickWaits, "Next never waited for the floor")
	p, err := o.Layout.Decompose(first)
	require.NoError(t, err)
	require.Equal(t, int64(1), p.Node)
	require.True(t, p.Time.After(floor.Truncate(o.Layout.Spec().Unit)), "first id %v not after floor %v", p.Time, floor)
	require.Equal(t, floor.UnixNano(), l.NotBefore().UnixNano())
	s.mu.Lock()
	require.Equal(t, []int64{-1, 0}, s.prefers, "no preference at start, the lost node on re-claim")
	s.mu.Unlock()
}

// TestLeaseTakenWhileTrusted: a renewal answered, before the lease's
// deadline, that another owner holds the node shows a store that lost the
// lease's writes (it gives a node away only after its record expired, after
// the deadline), so the heal's claim is a claim after a loss (Claim.Lost):
// holders the store forgot may issue on any node it shows free. Answered
// after the deadline, the same answer is an expiry and a takeover, and the
// claim is not one after a loss.
func TestLeaseTakenWhileTrusted(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		trusted bool
	}{{"trusted", true}, {"lapsed", false}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := short(t, 1)
			if c.trusted {
				// The renewal that finds node 0 taken runs RenewEvery
				// after the last; a TTL of 5 s leaves it 4.75 s to be
				// answered in time on a busy machine.
				o.TTL = 5 * time.Second
			}
			s, l, _ := scriptedLease(t, o)
			s.mu.Lock()
			s.lost = true
			if !c.trusted {
				// Unreachable past the deadline (TTL - Margin after the
				// last renewal began), then the answer that node 0 is taken.
				s.down = time.Now().Add(o.TTL)
			}
			s.mu.Unlock()
			deadline := time.Now().Add(o.TTL + o.RenewEvery + healSlack)
			for l.Stats().Reclaims == 0 {
				require.True(t, time.Now().Before(deadline), "never healed: %+v", l.Stats())
				time.Sleep(time.Millisecond)
			}
			require.Equal(t, int64(1), l.Node())
			s.mu.Lock()
			defer s.mu.Unlock()
			require.Equal(t, []bool{false, c.trusted}, s.losts, "the heal's claim is after a loss only if the node was taken while the lease was trusted")
		})
	}
}

package nodetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
)

// ttl is the cases' lease TTL: long enough for a busy machine to renew in
// time, short enough to keep each case to seconds.
const ttl = 2 * time.Second

// testCase is one fault, run on fresh servers.
type testCase struct {
	name  string
	needs []string
	run   func(e *env)
}

// opts are a holder's lease options and generator options.
type opts struct {
	node.LeaseOptions
	gen []generator.SnowflakeOption
}

// with returns o with one more generator option.
func (o opts) with(g generator.SnowflakeOption) opts {
	o.gen = append(slices.Clip(o.gen), g)
	return o
}

// options are the cases' options: defaults but the TTL, and nodes node
// bits (-1: the Twitter layout's ten).
func options(nodes int) opts {
	o := opts{LeaseOptions: node.LeaseOptions{TTL: ttl}}
	if nodes >= 0 {
		spec := generator.Twitter().Spec()
		spec.NodeBits, spec.Name = uint8(nodes), fmt.Sprintf("nodetest%d", nodes)
		l, err := generator.NewLayout(spec)
		if err != nil {
			panic(err)
		}
		o = o.with(generator.WithLayout(l))
	}
	return o
}

// offset is a clock reading the system clock plus d.
type offset time.Duration

func (d offset) Now() time.Time        { return time.Now().Add(time.Duration(d)) }
func (d offset) Sleep(s time.Duration) { time.Sleep(s) }

// replicated are the capabilities of a failover to an asynchronous replica.
var replicated = []string{"Replicate", "CaughtUp", "Detach", "Promote", "Kill"}

var cases = []testCase{
	{"Failover/moved", replicated, failover(true, false, 0)},
	{"Failover/dead", replicated, failover(true, true, 0)},
	{"Failover/first-claim-lost-with-table", replicated, failover(false, false, 0)},
	// A's clock ahead, B's behind, each by just under MaxClockOffset +
	// Margin: the floor still lies past A's last ID.
	{"Failover/clock-skew", replicated, failover(true, false, 500*time.Millisecond+ttl/4-50*time.Millisecond)},
	{"Failover/store-made-before", []string{"Replicate", "CaughtUp", "Promote", "Kill"}, claimsAfterFailover},
	{"Failover/lapsed-renewal", replicated, lapsedRenewal},
	{"Failover/claim-held-across", replicated, claimHeld},
	{"Failover/mixed-ttl-known", replicated, horizon(true, mixedTTL)},
	{"Failover/mixed-ttl-lost-with-claim", replicated, horizon(false, mixedTTL)},
	{"Failover/mixed-max-outage-known", replicated, horizon(true, mixedMaxOutage)},
	{"Failover/mixed-max-outage-lost-with-claim", replicated, horizon(false, mixedMaxOutage)},
	{"Failover/lossless", []string{"Replicate", "CaughtUp", "Promote", "Kill"}, lossless(false)},
	{"Failover/lossless-answer-lost", []string{"Replicate", "CaughtUp", "Promote", "Kill"}, lossless(true)},
	{"SplitBrain/alone", []string{"Replicate", "CaughtUp", "Detach", "Promote"}, splitBrain(1, false, false)},
	{"SplitBrain/alone-new-holder", []string{"Replicate", "CaughtUp", "Detach", "Promote"}, splitBrain(1, false, true)},
	{"SplitBrain/second-replica", []string{"Replicate", "CaughtUp", "Detach", "Promote"}, splitBrain(2, false, false)},
	{"SplitBrain/replica-added", []string{"Replicate", "CaughtUp", "Detach", "Promote"}, splitBrainLate},
	{"SplitBrain/restarted-empty", []string{"Replicate", "CaughtUp", "Detach", "Promote", "Restart"}, splitBrain(1, true, false)},
	{"Restart/keep", []string{"Restart"}, restart(true)},
	{"Restart/empty", []string{"Restart"}, restart(false)},
	{"Restore/live-holders", []string{"Snapshot"}, restoreLive(false)},
	{"Restore/live-holders-and-a-new-one", []string{"Snapshot"}, restoreLive(true)},
	{"Restore/operator-step", []string{"Snapshot"}, restoreStep(mixedTTL(0, 4*time.Second))},
	{"Restore/operator-step-mixed-max-outage", []string{"Snapshot"}, restoreStep(mixedMaxOutage(0, 4*time.Second))},
	{"Corrupt", []string{"Corrupt"}, corrupt},
	{"IdentityDeleted", []string{"Forget"}, forget},
	{"EightHandles", nil, eightHandles},
	{"Partition", nil, partition(false)},
	{"Pause", nil, partition(true)},
	// A and B share one Owner (a service name, a cloned container): the
	// owners recorded must still differ, or B takes A's node at once and
	// A, thawed, renews on B's record.
	{"Pause/shared-owner", nil, partitionOwner(true, "shared-owner")},
}

// failover: holder A claims on a primary whose replica was detached, so
// the replica never sees A's claim (a store that waits for its replicas
// refuses A: nothing to repeat); A's path is cut, the replica is
// promoted, the primary dies, B claims on the new primary, and A's path
// comes back at once (moved) or after A's lease lapsed (dead). warm:
// holders used the store before, and the replica has their records; else
// only the store's tables or keys (a store that answered one release). skew: A's clock reads ahead by it, B's
// behind.
func failover(warm, dead bool, skew time.Duration) func(e *env) {
	return func(e *env) {
		t := e.t
		o := options(-1)
		e.h.Replicate(t)
		if warm {
			w := e.start("warm", o)
			w.issuing(t, 4*ttl)
			w.halt()
		} else {
			// A store that has answered one request (a release that
			// changes nothing, as the contract says) has made its tables
			// or keys, as a store's first claim would.
			s := e.h.Store(t, e.link().dial)
			ctx, cancel := context.WithTimeout(context.Background(), 4*ttl)
			err := s.Release(ctx, node.Release{Node: 0, Owner: "nobody"})
			cancel()
			if err != nil {
				t.Fatalf("a release of a node nobody holds: %v", err)
			}
		}
		e.h.CaughtUp(t)
		e.h.Detach(t)
		oa, ob := o, o
		if skew != 0 {
			oa, ob = oa.with(generator.WithClock(offset(skew))), ob.with(generator.WithClock(offset(-skew)))
		}
		a := e.start("A", oa)
		a.servedOrRefused(t, 4*ttl)
		time.Sleep(ttl / 2)
		// A's path goes first, so that A never reaches the new primary
		// before the old one dies: on Redis Cluster the old master is
		// briefly a replica of the new one, and a lease that saw it
		// there fences when it dies, as docs/leases.md says.
		a.link.Cut()
		e.h.Promote(t)
		e.h.Kill(t)
		b := e.start("B", ob)
		if dead {
			time.Sleep(ttl + ttl/4)
		} else {
			time.Sleep(100 * time.Millisecond)
		}
		healed := time.Now()
		a.link.Heal()
		b.issuing(t, 4*ttl+2*skew)
		// An ID a TTL after A's path came back needs a claim or renewal
		// on the new primary.
		a.issuingAfter(t, healed.Add(ttl), 5*ttl+2*skew, "after its path came back")
		time.Sleep(200 * time.Millisecond)
		e.check()
	}
}

// claimsAfterFailover: a store made before the failover, that has claimed
// nothing yet, claims on the promoted replica within seconds; A, holding
// through the failover, heals.
func claimsAfterFailover(e *env) {
	t := e.t
	o := options(-1)
	e.h.Replicate(t)
	a := e.start("A", o)
	a.issuing(t, 4*ttl)
	e.h.CaughtUp(t)
	ln := e.link()
	s := e.h.Store(t, ln.dial)
	e.h.Promote(t)
	e.h.Kill(t)
	failed := time.Now()
	b := e.startOn("B", s, ln, o)
	b.issuing(t, 3*ttl)
	t.Logf("B issued %v after the failover", time.Since(failed).Round(time.Millisecond))
	a.issuingAfter(t, failed.Add(ttl), 5*ttl, "after the failover")
	e.check()
}

// lapsedRenewal: A's path hangs past its TTL; C claims A's node on the
// primary, which the replica never sees; C's primary dies, and A's path
// comes back on the promoted replica, where A's record looks as A left
// it. A's renewal must not simply succeed.
func lapsedRenewal(e *env) {
	t := e.t
	o := options(0)
	e.h.Replicate(t)
	a := e.start("A", o)
	a.issuing(t, 4*ttl)
	time.Sleep(ttl / 2)
	e.h.CaughtUp(t)
	a.link.Hold()
	time.Sleep(ttl + ttl/4)
	e.h.Detach(t)
	c := e.start("C", o)
	c.servedOrRefused(t, 4*ttl)
	c.link.Pin()
	e.h.Promote(t)
	e.h.Kill(t)
	a.link.Heal()
	time.Sleep(ttl + ttl/2)
	e.check()
}

// claimHeld: B's claim is sent before the failover and reaches the new
// primary after it, while A, whose claim the replica never saw, renewed
// on the old primary until then. B's floor must count from when its claim
// reached the store, not from when it was sent.
func claimHeld(e *env) {
	t := e.t
	o := options(0)
	e.h.Replicate(t)
	w := e.start("warm", o)
	w.issuing(t, 4*ttl)
	w.halt()
	e.h.CaughtUp(t)
	e.h.Detach(t)
	lb := e.link()
	sb := e.h.Store(t, lb.dial)
	lb.Hold()
	a := e.start("A", o)
	a.servedOrRefused(t, 4*ttl)
	a.link.Pin()
	b := e.startOn("B", sb, lb, o)
	time.Sleep(2 * ttl) // A renews on the old primary meanwhile
	e.h.Promote(t)
	a.link.Cut()
	lb.Heal()
	e.h.Kill(t)
	b.issuing(t, 4*ttl)
	time.Sleep(ttl / 4)
	e.check()
}

// mixedTTL returns the leases of a case whose holders differ in TTL: TTL
// long and TTL 1 s, the rest derived from the TTL; nodes as for options.
func mixedTTL(nodes int, long time.Duration) (opts, opts) {
	l, s := options(nodes), options(nodes)
	l.TTL, s.TTL = long, time.Second
	return l, s
}

// mixedMaxOutage returns the leases of a case whose holders differ only
// in MaxOutage: their TTLs are left to the lease to derive (MaxOutage +
// RenewEvery + Margin), long and 1 s, with the same RenewEvery and Margin
// for both (short, so that the case takes seconds); nodes as for options.
func mixedMaxOutage(nodes int, long time.Duration) (opts, opts) {
	const every, margin = 250 * time.Millisecond, 500 * time.Millisecond
	l, s := options(nodes), options(nodes)
	for _, o := range []*opts{&l, &s} {
		o.TTL, o.RenewEvery, o.Margin = 0, every, margin
	}
	l.MaxOutage, s.MaxOutage = long-every-margin, time.Second-every-margin
	return l, s
}

// leaseTTL is the TTL of a lease with o: TTL, or with TTL zero the one
// the lease derives, MaxOutage + RenewEvery + Margin (which a case that
// leaves the TTL zero sets).
func (o opts) leaseTTL() time.Duration {
	if o.TTL != 0 {
		return o.TTL
	}
	return o.MaxOutage + o.RenewEvery + o.Margin
}

// horizon: a holder with the short lease of leases(-1, 6 s) (TTL, set or
// derived, 1 s) made the store's tables or keys; A, with the long lease
// (6 s), claims on the primary after the replica was detached, and is
// lost with the failover, cut off and issuing until its lease lapses, as
// through an outage it rides; B, with the short lease, claims on the new
// primary and must wait out A's horizon, not its own. known: a holder
// with A's lease used the store before the replica was detached, so the
// replica knows the longer horizon; else the claim that raised it is lost
// too.
func horizon(known bool, leases func(nodes int, long time.Duration) (opts, opts)) func(e *env) {
	return func(e *env) {
		t := e.t
		long, short := leases(-1, 6*time.Second)
		longTTL, shortTTL := long.leaseTTL(), short.leaseTTL()
		e.h.Replicate(t)
		first := short
		if known {
			first = long
		}
		w := e.start("first", first)
		w.issuing(t, 4*ttl)
		w.halt()
		e.h.CaughtUp(t)
		e.h.Detach(t)
		a := e.start("A", long)
		a.servedOrRefused(t, 4*ttl)
		time.Sleep(shortTTL)
		e.h.Promote(t)
		a.link.Cut()
		e.h.Kill(t)
		b := e.start("B", short)
		b.issuing(t, 2*longTTL)
		time.Sleep(longTTL - longTTL/4)
		e.check()
	}
}

// splitBrain: the first replica is detached and promoted while the old
// primary keeps serving A (a partition between the failover manager and
// the old primary that fences nothing); B claims on the new primary. The
// old primary keeps replicas-1 replicas; restarted: it restarts empty
// first; renew: A closes its lease and A2, a new holder on the old
// primary, claims the node. With one node ID, B takes A's node once A's
// record expires on the new primary; A (or A2) must stop issuing by then.
func splitBrain(replicas int, restarted, renew bool) func(e *env) {
	return func(e *env) {
		t := e.t
		o := options(0)
		for range replicas {
			e.h.Replicate(t)
		}
		a := e.start("A", o)
		a.issuing(t, 4*ttl)
		e.h.CaughtUp(t)
		a.link.Pin()
		e.h.Detach(t)
		e.h.Promote(t)
		if restarted {
			e.h.Restart(t, false)
		}
		if renew {
			a.halt()
			e.startOn("A2", e.h.Store(t, a.link.dial), a.link, o)
		}
		b := e.start("B", o)
		b.issuing(t, 4*ttl)
		time.Sleep(ttl)
		e.check()
	}
}

// splitBrainLate: A claims on a primary with no replica; a replica joins
// and catches up while A renews (as one added after a failover does); then
// the link between them breaks and the replica is promoted while the
// primary still serves A. A's renewals must wait for the replica they see
// now, not only for those its claim saw, so A fences instead of issuing
// beside B.
func splitBrainLate(e *env) {
	t := e.t
	o := options(0)
	a := e.start("A", o)
	a.issuing(t, 4*ttl)
	e.h.Replicate(t)
	e.h.CaughtUp(t)
	time.Sleep(ttl) // three renewals (RenewEvery = TTL/3) that see the replica
	e.h.CaughtUp(t)
	a.link.Pin()
	e.h.Detach(t)
	e.h.Promote(t)
	b := e.start("B", o)
	b.issuing(t, 4*ttl)
	time.Sleep(ttl)
	e.check()
}

// restart: the primary restarts, with its data or empty, under holder A;
// C starts after the restart. A heals and issues again. Empty: C starts
// once A stopped trusting its node (its renewal met the empty server, or
// its lease ran out first), since a process that first reaches a wiped
// store cannot tell it from a new one (as after a restore without the
// operator step), while A must notice. A renewal that failed in the
// restart's outage is not enough: A rightly issues until TTL - Margin
// after its last renewal, and a C started then takes A's node at once.
func restart(keep bool) func(e *env) {
	return func(e *env) {
		t := e.t
		o := options(-1)
		a := e.start("A", o)
		a.issuing(t, 4*ttl)
		time.Sleep(ttl / 2)
		before := a.stats()
		e.h.Restart(t, keep)
		restarted := time.Now()
		if !keep {
			deadline := time.Now().Add(3 * ttl)
			for st := a.stats(); st.Fences == before.Fences && st.Reclaims == before.Reclaims; st = a.stats() {
				if time.Now().After(deadline) {
					t.Fatalf("holder A did not notice the restart: %+v", st)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		c := e.start("C", o)
		c.issuing(t, 4*ttl)
		if keep {
			a.issuingAfter(t, restarted, 4*ttl, "after the restart")
		} else {
			a.healed(t, before.Reclaims, 4*ttl, "after the restart")
		}
		time.Sleep(ttl / 2)
		e.check()
	}
}

// restoreLive: A holds a node when the store is copied; C claims another
// after; the copy is restored without the operator step, under both. Both
// must notice (A's record is older than A saw, C's is gone) and heal by
// claims that wait out the horizon: a claim that did not could land on the
// node the other still trusts. newcomer: B starts at the restore and may
// take A's node first, so that A's claim lands on C's (of the three
// holders on two nodes, one then cannot heal). A process started
// after a restore without the step cannot tell (docs/leases.md), so B's
// IDs are not counted; A's and C's must not meet.
func restoreLive(newcomer bool) func(e *env) {
	return func(e *env) {
		t := e.t
		o := options(1)
		a := e.start("A", o)
		a.issuing(t, 4*ttl)
		restore := e.h.Snapshot(t)
		c := e.start("C", o)
		c.issuing(t, 4*ttl)
		a.renewed(t, 2, 3*ttl)
		ra, rc := a.stats().Reclaims, c.stats().Reclaims
		restore(t, false)
		restored := time.Now()
		if newcomer {
			// Of three holders on two nodes, one cannot heal.
			b := e.start("B", o)
			time.Sleep(2 * ttl)
			e.checkBut(b)
			return
		}
		a.healed(t, ra, 4*ttl, "after the restore")
		c.healed(t, rc, 4*ttl, "after the restore")
		t.Logf("both holders healed within %v", time.Since(restored).Round(time.Millisecond))
		time.Sleep(ttl / 2)
		e.check()
	}
}

// restoreStep: a holder with the long lease (TTL, set or derived, 4 s in
// the cases) used the store; the store is copied; A, with the long lease,
// claims, issues, and is cut off (it issues until its lease lapses); the
// copy is restored with the operator step; B, with the short lease (1 s),
// must wait out A's horizon, not its own.
func restoreStep(long, short opts) func(e *env) {
	return func(e *env) {
		t := e.t
		longTTL := long.leaseTTL()
		w := e.start("first", long)
		w.issuing(t, 4*ttl)
		w.halt()
		restore := e.h.Snapshot(t)
		a := e.start("A", long)
		a.issuing(t, 4*ttl)
		time.Sleep(longTTL / 4)
		a.link.Cut()
		restore(t, true)
		b := e.start("B", short)
		b.issuing(t, 2*longTTL)
		time.Sleep(longTTL / 4)
		e.check()
	}
}

// corrupt: each field A's record depends on in turn gets a value the
// store never writes, under A and B; C claims after. Some error of A's,
// B's or C's must name the field (C's claim reads every field a claim
// depends on), and A and C must heal (by themselves, or once the field is
// repaired); no ID repeats.
func corrupt(e *env) {
	for i := 0; ; i++ {
		var field string
		e.t.Run(fmt.Sprint(i), func(t *testing.T) {
			se := &env{t: t, h: e.h}
			o := options(-1)
			a := se.start("A", o)
			b := se.start("B", o)
			a.issuing(t, 4*ttl)
			b.issuing(t, 4*ttl)
			var repair func(t *testing.T)
			field, repair = se.h.Corrupt(t, a.stats().Node, i)
			if field == "" {
				t.Skipf("the record has %d fields", i)
			}
			t.Logf("field %s of node %d", field, a.stats().Node)
			corrupted := time.Now()
			c := se.start("C", o)
			named := func() bool {
				for _, h := range []*holder{a, b, c} {
					if h.logs.contains(field) || strings.Contains(fmt.Sprint(h.lastErr()), field) {
						return true
					}
				}
				return false
			}
			deadline := corrupted.Add(3 * ttl)
			for !named() {
				if time.Now().After(deadline) {
					t.Errorf("no error of A, B or C names the field %s: A's log: %s; C's last error: %v", field, a.logs, c.lastErr())
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			healFrom := corrupted
			if repair != nil {
				repair(t)
				healFrom = time.Now()
			}
			// An ID a TTL later needs a renewal or claim that succeeded
			// after the corruption.
			a.issuingAfter(t, healFrom.Add(ttl), 5*ttl, "after its record was corrupted")
			c.issuingAfter(t, healFrom, 5*ttl, "after the record was corrupted")
			se.check()
		})
		if field == "" {
			return
		}
	}
}

// forget: the store's identity record is deleted under A and B; both keep
// issuing (or heal), and C, started after, repeats none of their IDs.
func forget(e *env) {
	t := e.t
	o := options(-1)
	a := e.start("A", o)
	b := e.start("B", o)
	a.issuing(t, 4*ttl)
	b.issuing(t, 4*ttl)
	e.h.Forget(t)
	gone := time.Now()
	c := e.start("C", o)
	c.issuing(t, 4*ttl)
	a.issuingAfter(t, gone.Add(ttl), 4*ttl, "after the identity was deleted")
	b.issuingAfter(t, gone.Add(ttl), 4*ttl, "after the identity was deleted")
	e.check()
}

// eightHandles: eight stores are made at once on empty servers and claim
// at once; every first claim succeeds, on eight nodes.
func eightHandles(e *env) {
	t := e.t
	o := options(-1)
	links := make([]*link, 8)
	stores := make([]node.Store, 8)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range stores {
		links[i] = e.link()
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			stores[i] = e.h.Store(t, links[i].dial)
		}()
	}
	close(gate)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	hs := make([]*holder, 8)
	for i := range hs {
		hs[i] = e.startOn(fmt.Sprint("H", i), stores[i], links[i], o)
	}
	nodes := map[int64]bool{}
	for _, h := range hs {
		h.issuing(t, 4*ttl)
		nodes[h.stats().Node] = true
		if n := h.failedClaims(); n != 0 {
			t.Errorf("holder %s: %d failed claims before its first (last: %v)", h.name, n, h.lastErr())
		}
	}
	if len(nodes) != 8 {
		t.Errorf("eight holders hold %d nodes", len(nodes))
	}
	time.Sleep(ttl / 2)
	e.check()
}

// partition: with one node ID, A's path hangs (pause: and A stops issuing)
// past its TTL; B claims A's node; A's path heals (and A resumes). A must
// not issue again on the node B holds; B must keep it.
func partition(pause bool) func(e *env) { return partitionOwner(pause, "") }

// partitionOwner is partition with both holders' LeaseOptions.Owner set
// to owner ("" for the default).
func partitionOwner(pause bool, owner string) func(e *env) {
	return func(e *env) {
		t := e.t
		o := options(0)
		o.Owner = owner
		a := e.start("A", o)
		a.issuing(t, 4*ttl)
		if !a.link.dialled() {
			t.Skip("the store's client makes no connection to cut (an embedded database)")
		}
		a.link.Hold()
		if pause {
			a.pause.Lock()
		}
		b := e.start("B", o)
		b.issuing(t, 4*ttl)
		time.Sleep(ttl / 2)
		if pause {
			a.pause.Unlock()
		}
		a.link.Heal()
		time.Sleep(ttl)
		if st := b.stats(); st.State == node.LeaseLost {
			t.Errorf("B lost its lease: %+v", st)
		}
		e.check()
	}
}

// losslessOpts are Failover/lossless's leases: a promotion fits in the
// trust a lease has left after its last renewal, TTL - Margin, and a
// renewal notices the failover within RenewEvery.
func losslessOpts() opts {
	o := options(-1)
	o.TTL, o.RenewEvery = 3*ttl, ttl/8
	return o
}

// lossless: holders issue through a failover that loses nothing: the
// replica caught up (and a store that waits for its replicas had it
// acknowledge every write the holders saw), the primary dies and the
// replica is promoted. Each holder's renewal fails with ErrForgot (a new
// identity), and its claim after the loss, preferring its node, finds
// its record as it saw it ([node.Claimed].Kept): it keeps its node with
// no refused ID and no stall near the horizon, and no ID repeats. Only
// for a harness with SetsKept: a store that does not set Kept waits out
// the horizon after every loss.
//
// answerLost: A's link drops every answer for 1.5 RenewEvery before the
// kill, so the primary applies A's renewals (and the replica gets them)
// but A never reads one: A finds its record at a version past the one it
// saw, written by its own renewal. (A store whose renewal makes more than
// one round trip, as MariaDB's transaction or Redis's, writes nothing
// while its first answer is lost, and A finds the version it saw.)
func lossless(answerLost bool) func(e *env) {
	return func(e *env) {
		t := e.t
		if !e.h.SetsKept {
			t.Skip("the harness does not set SetsKept: the store's holders wait out the horizon after every loss")
		}
		o := losslessOpts()
		e.h.Replicate(t)
		hs := []*holder{e.start("A", o), e.start("B", o), e.start("C", o)}
		for _, h := range hs {
			h.issuing(t, 4*o.TTL)
		}
		e.h.CaughtUp(t)
		time.Sleep(2 * o.RenewEvery)
		if answerLost {
			hs[0].link.Deafen()
			time.Sleep(o.RenewEvery * 3 / 2)
			e.h.CaughtUp(t)
		}
		start := time.Now()
		e.h.Kill(t)
		if answerLost {
			hs[0].link.Heal()
		}
		e.h.Promote(t)
		took := time.Since(start)
		losslessCheck(e, o, hs, took)
	}
}

// losslessCheck: every holder renews on the new primary and issues on,
// with no refusal, fence or reclaim, and no ID repeats.
func losslessCheck(e *env, o opts, hs []*holder, took time.Duration) {
	t := e.t
	// Every holder renews on the new primary, then issues a TTL more.
	for _, h := range hs {
		h.renewed(t, 2, 2*o.TTL)
	}
	time.Sleep(o.TTL)
	for _, h := range hs {
		h.issuingAfter(t, time.Now(), 2*time.Second, "after the failover")
		refused, longest := h.stalls()
		st := h.stats()
		t.Logf("holder %s: %d refused, %v at most without an ID, stats %+v", h.name, refused, longest.Round(time.Millisecond), st)
		if refused != 0 || st.Fences != 0 || st.Reclaims != 0 {
			t.Errorf("holder %s across a failover that lost nothing (kill and promote: %v): %d IDs refused, %d fences, %d reclaims; want none\nits lease's log:\n%s",
				h.name, took.Round(time.Millisecond), refused, st.Fences, st.Reclaims, h.logs)
		}
		if longest > o.TTL/2 {
			t.Errorf("holder %s: %v without an ID, want well below the horizon (TTL %v)", h.name, longest, o.TTL)
		}
	}
	e.check()
}

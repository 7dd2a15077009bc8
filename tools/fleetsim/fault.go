package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"go.etcd.io/etcd/server/v3/embed"

	"github.com/idkit-go/idkit/internal/testservers"
)

// defaultTTL is node.LeaseOptions' default TTL, which -fault runs use
// unless -ttl is given: the options a service runs with.
const defaultTTL = 10 * time.Second

// A -fault run is one fault and no churn, so that its IDs per second show
// the fault alone:
//
//   - outage: at -fault-at every worker's proxy stops forwarding (even
//     workers' drop traffic, odd workers' refuse connections) for half of
//     -outage; then the server is stopped (PostgreSQL immediate, MariaDB and
//     Redis SIGKILL; etcd: two of its three members closed, so the third
//     has no quorum) and the proxies forward again, to a server that is
//     down; at -outage the server starts again with its data (Redis from an
//     append-only file written with appendfsync always). The store is
//     unreachable from the first cut until the server answers again.
//   - lossless: at -fault-at the primary dies and a replica that holds
//     every acknowledged write is promoted (PostgreSQL's synchronous
//     standby, MariaDB's semi-synchronous replica, a Redis replica that
//     acknowledged every claim and renewal), or etcd's leader dies; the
//     proxies move to it, as a virtual IP moves. No replication cut, no
//     churn of its own.
func faultConfig(c config) (config, error) {
	switch c.fault {
	case "":
		return c, nil
	case "outage", "lossless":
	default:
		return c, fmt.Errorf("-fault %q: outage or lossless", c.fault)
	}
	if c.failover {
		return c, fmt.Errorf("-fault and -failover: one or the other")
	}
	if c.faultAt == 0 {
		c.faultAt = c.duration / 3
	}
	if c.fault == "lossless" {
		c.failover = true // the failover's machinery, without its cut and churn
		c.lag = 0
	}
	if c.fault == "outage" && c.outage <= 0 {
		return c, fmt.Errorf("-outage %v: must be positive", c.outage)
	}
	end := c.faultAt
	if c.fault == "outage" {
		end += c.outage
	}
	if c.faultAt < 5*time.Second || end > c.duration-10*time.Second {
		return c, fmt.Errorf("-fault-at %v and -outage %v: the fault must start 5 s after the start and end 10 s before the end of the %v run", c.faultAt, c.outage, c.duration)
	}
	return c, nil
}

// failoverAt is when a -failover or -fault lossless run fails over, from
// the simultaneous claim.
func (s *sim) failoverAt() time.Duration {
	if s.c.fault != "" {
		return s.c.faultAt
	}
	return s.c.duration / 2
}

// outageTimes is what happened when, in a -fault outage run.
type outageTimes struct {
	start, stopped, linkBack, startAsked, end time.Time
	err                                       error
}

// outagePlan starts the one private server of a -fault outage run on
// PostgreSQL, MariaDB or Redis and returns how to stop and start it; it
// sets a.target and a.dsn.
func outagePlan(t *tb, a *admin) *failoverPlan {
	switch a.kind {
	case "postgres":
		p := testservers.StartPostgres(t)
		a.target, a.dsn = p.Addr(), testservers.PostgresDSN
		return &failoverPlan{what: "PostgreSQL", stopWhat: "stopped (pg_ctl stop -m immediate), then started with its data",
			stop: func() { p.Kill(t) }, start: func() { p.Restart(t, true) }}
	case "mysql":
		m := testservers.StartMariaDB(t, 1)
		a.target, a.dsn = m.Addr(), testservers.MySQLDSN
		return &failoverPlan{what: "MariaDB", stopWhat: "killed (SIGKILL), then started with its data",
			stop: func() { m.Kill(t) }, start: func() { m.Restart(t, true) }}
	case "redis":
		r := testservers.StartRedis(t, "--appendonly", "yes", "--appendfsync", "always")
		a.target = r.Addr()
		return &failoverPlan{what: "Redis (appendonly yes, appendfsync always)", stopWhat: "killed (SIGKILL), then started from its append-only file",
			stop: func() { r.Kill(t) }, start: func() { r.Restart(t) }}
	}
	t.Fatalf("no outage for store %q", a.kind)
	return nil
}

// etcdOutagePlan stops two of the cluster's three members (the third has
// no quorum) and starts them again with their data.
func etcdOutagePlan(c *etcdCluster) *failoverPlan {
	return &failoverPlan{what: "etcd (3 members in process)", stopWhat: "two of three members closed (quorum lost), then started with their data",
		stop: func() {
			for i := 1; i < len(c.members); i++ {
				if e := c.members[i]; e != nil {
					c.members[i] = nil
					e.Close()
				}
			}
		},
		start: func() {
			errs := make(chan error, len(c.members))
			for i := 1; i < len(c.members); i++ {
				go func() {
					e, err := embed.StartEtcd(c.cfgs[i])
					if err == nil {
						c.members[i] = e
						select {
						case <-e.Server.ReadyNotify():
						case err = <-e.Err():
						case <-time.After(time.Minute):
							err = fmt.Errorf("etcd member %d not ready after a minute", i)
						}
					}
					errs <- err
				}()
			}
			for i := 1; i < len(c.members); i++ {
				if err := <-errs; err != nil {
					panic(tbFailure{err.Error()})
				}
			}
		}}
}

// synchronousStandby makes p's one standby synchronous and waits until p
// reports it so: every commit on p then waits for the standby's flush.
func synchronousStandby(t *tb, p *testservers.Postgres) {
	p.Psql(t, "ALTER SYSTEM SET synchronous_standby_names = '*'")
	p.Psql(t, "SELECT pg_reload_conf()")
	deadline := time.Now().Add(30 * time.Second)
	for p.Psql(t, "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") != "1" {
		if time.Now().After(deadline) {
			t.Fatal("the standby is not synchronous after 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// outage is a -fault outage run's fault: every proxy cut for half of
// -outage, then the server stopped with the proxies forwarding again,
// then the server started.
func (s *sim) outage(ctx context.Context) {
	t0 := s.start.Add(s.c.faultAt)
	ot := &s.out
	if !sleepUntil(ctx, t0) {
		return
	}
	ot.start = time.Now()
	for slot := range s.proxies {
		s.setPartition(slot, []string{"blackhole", "cut"}[slot%2])
	}
	fmt.Fprintf(s.log, "fleetsim: outage: every proxy cut\n")
	if !sleepUntil(ctx, t0.Add(s.c.outage/2)) {
		return
	}
	ot.stopped = time.Now()
	if err := (&tb{}).do("stopping the server", s.plan.stop); err != nil {
		ot.err = err
	}
	for slot := range s.proxies {
		s.setPartition(slot, "")
	}
	ot.linkBack = time.Now()
	fmt.Fprintf(s.log, "fleetsim: outage: server stopped, proxies forwarding again\n")
	if !sleepUntil(ctx, t0.Add(s.c.outage)) {
		return
	}
	ot.startAsked = time.Now()
	if err := (&tb{}).do("starting the server", s.plan.start); err != nil && ot.err == nil {
		ot.err = err
	}
	ot.end = time.Now()
	fmt.Fprintf(s.log, "fleetsim: outage: server answering again after %v (start took %v)\n",
		ot.end.Sub(ot.start).Round(time.Millisecond), ot.end.Sub(ot.startAsked).Round(time.Millisecond))
	if ot.err != nil {
		fmt.Fprintln(s.log, "fleetsim:", ot.err)
	}
	s.mu.Lock()
	for slot := range s.proxies {
		s.disrupts = append(s.disrupts, disruption{slot: slot, kind: "outage", start: ot.start, end: ot.end, inc: s.current[slot]})
	}
	s.mu.Unlock()
}

// faultWindow returns the run's fault (the outage, or a failover from the
// primary's death to the proxies' move), from the simultaneous claim, and
// whether there was one.
func (s *sim) faultWindow() (from, to time.Duration, ok bool) {
	switch {
	case s.c.fault == "outage" && !s.out.end.IsZero():
		return s.out.start.Sub(s.start), s.out.end.Sub(s.start), true
	case s.c.failover && !s.fo.moved.IsZero():
		from := s.fo.killed
		if !s.fo.cut.IsZero() {
			from = s.fo.cut
		}
		return from.Sub(s.start), s.fo.moved.Sub(s.start), true
	}
	return 0, 0, false
}

// phaseOf names the fault in force during second sec of the run (the
// phase covering most of it), or "-".
func (s *sim) phaseOf(sec int) string {
	type phase struct {
		name     string
		from, to time.Time
	}
	var ps []phase
	switch {
	case s.c.fault == "outage" && !s.out.end.IsZero():
		ps = []phase{{"link-cut", s.out.start, s.out.stopped}, {"server-down", s.out.stopped, s.out.end}}
	case s.c.failover && !s.fo.moved.IsZero():
		if !s.fo.cut.IsZero() {
			ps = append(ps, phase{"replication-cut", s.fo.cut, s.fo.killed})
		}
		ps = append(ps, phase{"failover", s.fo.killed, s.fo.moved})
	}
	a := s.start.Add(time.Duration(sec) * time.Second)
	b := a.Add(time.Second)
	best, most := "-", time.Duration(0)
	for _, p := range ps {
		lo, hi := a, b
		if p.from.After(lo) {
			lo = p.from
		}
		if p.to.Before(hi) {
			hi = p.to
		}
		if o := hi.Sub(lo); o > most || (o > 0 && p.to.Sub(p.from) < time.Second && most == 0) {
			best, most = p.name, o
		}
	}
	return best
}

// analyseSeries adds the run's IDs per second, one row per full second
// from the simultaneous claim, with the fault in force, and, in a run with
// a fault, the rate during and after it as a fraction of the rate before,
// every holder's seconds without an ID, and how long after the fault's end
// every holder had issued again.
func (s *sim) analyseSeries(r *report, recs []record, end time.Time, allClaimed time.Duration) {
	nsec := int(end.Sub(s.start) / time.Second)
	if nsec <= 0 {
		return
	}
	counts := make([]int, nsec)
	// writes counts each holder's write once: a burst (its IDs written
	// together, within a few ms) as one, so that its IDs per second do not
	// swing with the bursts.
	writes := make([]int, nsec)
	issued := make([][]bool, s.c.holders) // holder, second
	for h := range issued {
		issued[h] = make([]bool, nsec)
	}
	firstAfter := make([]int64, s.c.holders) // ms of the first ID at or after the fault's end, -1: none
	for h := range firstAfter {
		firstAfter[h] = -1
	}
	from, to, fault := s.faultWindow()
	prevHolder, prevMs := int32(-1), uint32(0)
	for _, rc := range recs {
		sec := int(rc.ms / 1000)
		h := int(rc.holder)
		if h < 0 || h >= s.c.holders {
			continue
		}
		// recs are in each file's order, where a write's records lie
		// together; a holder's next tick comes at least 0.25 s later.
		sameWrite := rc.holder == prevHolder && rc.ms-prevMs <= 50
		prevHolder, prevMs = rc.holder, rc.ms
		if sec < nsec {
			counts[sec]++
			issued[h][sec] = true
			if !sameWrite {
				writes[sec]++
			}
		}
		if fault && int64(rc.ms) >= to.Milliseconds() && (firstAfter[h] < 0 || int64(rc.ms) < firstAfter[h]) {
			firstAfter[h] = int64(rc.ms)
		}
	}
	holdersIn := func(sec int) int {
		n := 0
		for h := range issued {
			if issued[h][sec] {
				n++
			}
		}
		return n
	}
	r.add("per_second_columns", "second ids holders_issuing fault (second n is [n s, n+1 s) from the simultaneous claim)")
	for sec := range nsec {
		r.add("per_second", fmt.Sprintf("%d %d %d %s", sec, counts[sec], holdersIn(sec), s.phaseOf(sec)))
	}
	if !fault {
		return
	}
	// Full seconds before the fault (from the first second after every
	// holder claimed in which 95% of the holders issued: a claim on a store
	// the lease cannot vouch for waits before its first ID), during it
	// (every second it touches), and after it.
	f0, f1 := int(from/time.Second), int(math.Ceil(to.Seconds())) // during: [f0, f1)
	b0 := int(math.Ceil(allClaimed.Seconds()))
	for b0 < f0-1 && float64(holdersIn(b0)) < 0.95*float64(s.c.holders) {
		b0++
	}
	if f1 <= f0 {
		f1 = f0 + 1
	}
	meanOf := func(counts []int, a, b int) (float64, int) {
		a, b = max(a, 0), min(b, nsec)
		if b <= a {
			return 0, 0
		}
		sum, lo := 0, math.MaxInt
		for _, n := range counts[a:b] {
			sum += n
			lo = min(lo, n)
		}
		return float64(sum) / float64(b-a), lo
	}
	mean := func(a, b int) (float64, int) { return meanOf(counts, a, b) }
	before, _ := mean(b0, f0)
	during, duringMin := mean(f0, f1)
	after, afterMin := mean(f1, nsec)
	after5, _ := mean(f1, f1+5)
	// ratio is x as a fraction of base, for the report.
	ratio := func(x, base float64) string {
		if base == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.3f", x/base)
	}
	frac := func(x float64) string { return ratio(x, before) }
	r.add("fault_window", fmt.Sprintf("%v to %v from the start (%v)", from.Round(time.Millisecond), to.Round(time.Millisecond), (to-from).Round(time.Millisecond)))
	r.add("rate_seconds", fmt.Sprintf("before [%d, %d), during [%d, %d), after [%d, %d)", b0, f0, f0, f1, f1, nsec))
	r.add("rate_before_ids_per_s", before)
	r.add("rate_during_ids_per_s", during)
	r.add("rate_after_ids_per_s", after)
	r.add("rate_during_fraction", frac(during))
	r.add("rate_during_min_second_fraction", frac(float64(duringMin)))
	r.add("rate_after_fraction", frac(after))
	r.add("rate_after_first_5s_fraction", frac(after5))
	r.add("rate_after_min_second_fraction", frac(float64(afterMin)))

	// The same without the bursts' swing: every write once.
	wb, _ := meanOf(writes, b0, f0)
	wd, wdMin := meanOf(writes, f0, f1)
	wa, waMin := meanOf(writes, f1, nsec)
	wa5, _ := meanOf(writes, f1, f1+5)
	wfrac := func(x float64) string { return ratio(x, wb) }
	r.add("writes_per_s_meaning", "each holder's write of IDs counted once (a burst of IDs as one): IDs per second without the bursts' swing")
	r.add("writes_before_per_s", wb)
	r.add("writes_during_fraction", wfrac(wd))
	r.add("writes_during_min_second_fraction", wfrac(float64(wdMin)))
	r.add("writes_after_fraction", wfrac(wa))
	r.add("writes_after_first_5s_fraction", wfrac(wa5))
	r.add("writes_after_min_second_fraction", wfrac(float64(waMin)))

	// Holders issuing per second: at the default rate (a tick every 0.25
	// to 0.75 s) every live holder issues in every second, so this does
	// not vary with the bursts as the IDs per second do.
	hmean := func(a, b int) float64 {
		a, b = max(a, 0), min(b, nsec)
		if b <= a {
			return 0
		}
		sum := 0
		for sec := a; sec < b; sec++ {
			sum += holdersIn(sec)
		}
		return float64(sum) / float64(b-a)
	}
	hb := hmean(b0, f0)
	hfrac := func(x float64) string {
		if hb == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.3f", x/hb)
	}
	r.add("holders_issuing_before_per_s", hb)
	r.add("holders_issuing_during_fraction", hfrac(hmean(f0, f1)))
	r.add("holders_issuing_after_fraction", hfrac(hmean(f1, nsec)))

	// Seconds without an ID, per holder, from b0 on.
	var gapBefore, gapDuring, gapAfter, withGap, maxGap int
	for h := range issued {
		g := 0
		for sec := b0; sec < nsec; sec++ {
			if issued[h][sec] {
				continue
			}
			g++
			switch {
			case sec < f0:
				gapBefore++
			case sec < f1:
				gapDuring++
			default:
				gapAfter++
			}
		}
		if g > 0 {
			withGap++
		}
		maxGap = max(maxGap, g)
	}
	r.add("holder_seconds_without_id", fmt.Sprintf("%d (before %d, during %d, after %d) over %d holders x %d s", gapBefore+gapDuring+gapAfter, gapBefore, gapDuring, gapAfter, s.c.holders, max(0, nsec-b0)))
	r.add("holders_with_a_second_without_id", withGap)
	r.add("holder_seconds_without_id_max", maxGap)

	// Every holder issuing again after the fault's end.
	var ds []time.Duration
	silent := 0
	for _, ms := range firstAfter {
		if ms < 0 {
			silent++
			continue
		}
		ds = append(ds, time.Duration(ms)*time.Millisecond-to)
	}
	r.add("holders_issuing_after_fault", fmt.Sprintf("%d / %d", len(ds), s.c.holders))
	r.add("first_id_after_fault_p50", pct(ds, 0.50))
	r.add("first_id_after_fault_p99", pct(ds, 0.99))
	r.add("every_holder_issuing_after", pct(ds, 1))
	// A holder may issue just after the fault from a lease it still
	// trusts and stop later (its next renewal finds the failover). A holder
	// stopped when it wrote no ID for more than stopGap (it writes one
	// every 0.25 to 0.75 s, bursts aside); it issues again with the ID
	// that ends the last such gap begun before the fault's end + 2 TTLs.
	const stopGap = 2 * time.Second
	type gap struct{ from, to int64 } // ms
	last := make([]gap, s.c.holders)
	prev := make([]int64, s.c.holders)
	for h := range prev {
		prev[h] = -1
	}
	byTime := slices.Clone(recs)
	slices.SortFunc(byTime, func(a, b record) int { return cmp.Compare(a.ms, b.ms) })
	horizon := (to + 2*s.c.ttl).Milliseconds()
	for _, rc := range byTime {
		h := int(rc.holder)
		if h < 0 || h >= s.c.holders {
			continue
		}
		ms := int64(rc.ms)
		if p := prev[h]; p >= 0 && ms-p > stopGap.Milliseconds() && p < horizon && ms > from.Milliseconds() {
			last[h] = gap{p, ms}
		}
		prev[h] = ms
	}
	stopped, never, again := 0, 0, time.Duration(0)
	var agains []time.Duration
	endMs := end.Sub(s.start).Milliseconds()
	for h, g := range last {
		if p := prev[h]; p >= 0 && endMs-p > stopGap.Milliseconds() && p < horizon {
			stopped++ // stopped and never issued again
			never++
			continue
		}
		if g.to == 0 {
			continue
		}
		stopped++
		d := max(0, time.Duration(g.to)*time.Millisecond-to)
		agains = append(agains, d)
		again = max(again, d)
	}
	r.add("holders_stopped_by_fault", fmt.Sprintf("%d / %d", stopped, s.c.holders))
	r.add("stopped_holders_issuing_again_p50", pct(agains, 0.50))
	if never > 0 {
		r.add("every_holder_issuing_again_after", fmt.Sprintf("never: %d stopped holders issued no ID again", never))
	} else {
		r.add("every_holder_issuing_again_after", again)
	}
	if s.c.fault == "outage" {
		r.Silent = silent
	}
}

// analyseOutage adds a -fault outage run's own figures.
func (s *sim) analyseOutage(r *report) {
	ot := s.out
	r.add("fault", fmt.Sprintf("outage of %s: every proxy cut (even workers' dropping traffic, odd workers' refusing connections), then the server %s", s.plan.what, s.plan.stopWhat))
	if ot.end.IsZero() {
		r.add("fault_error", "the outage did not complete")
		return
	}
	r.add("fault_at", ot.start.Sub(s.start))
	r.add("outage_link_cut", ot.stopped.Sub(ot.start))
	r.add("outage_server_down", ot.end.Sub(ot.stopped))
	r.add("outage_server_start_took", ot.end.Sub(ot.startAsked))
	r.add("outage_unreachable", ot.end.Sub(ot.start))
	if ot.err != nil {
		r.add("fault_error", strings.ReplaceAll(ot.err.Error(), "\n", " "))
	}
}

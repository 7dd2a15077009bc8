package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/internal/testservers"
)

// failoverPlan is how a -failover run's coordinator fails over.
type failoverPlan struct {
	what    string        // for the report
	cut     func()        // stops replication to the replica (nil: none)
	kill    func() string // kills the primary (etcd: the leader) and returns its address
	promote func()        // makes the replica the primary (nil: nothing to do)
	next    func(killed string) string

	lossless bool // -fault lossless: no replication cut, no churn of its own

	// -fault outage: the server (etcd: two of the three members) stopped
	// and started with its data.
	stop, start func()
	stopWhat    string
}

// failoverTimes is what happened when, in a -failover run.
type failoverTimes struct {
	at                 time.Time // the primary's death
	cut, killed, moved time.Time
	killedAddr         string
	err                error // the promotion's failure
	partition, kill    int   // the workers of the failover's own churn (-1: none)
}

// openPrivate starts the private servers of a -failover or -fault run on
// PostgreSQL, MariaDB or Redis, and connects the admin to the primary
// through a proxy of its own that moves with the workers'. A -failover run
// (fault "") has a primary and a replica fed through a proxy (the link)
// that the failover cuts; a -fault lossless run the same without the cut,
// its replica synchronous (PostgreSQL's synchronous_standby_names,
// MariaDB's semi-sync, every Redis write acknowledged by the replica); a
// -fault outage run one server, which the outage stops and starts with its
// data (Redis with appendfsync always).
func openPrivate(ctx context.Context, a *admin, fault string, lifetime time.Duration) error {
	// fleetsim was asked for private servers: testservers' gate for the
	// store-fault tests does not apply.
	os.Setenv(testdb.EnvFaults, "1")
	t := &tb{}
	a.servers = t
	proxy := func(target string) *tcpproxy.Proxy {
		p, err := tcpproxy.NewFor(target, lifetime)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		return p
	}
	what := "starting the " + a.kind + " primary and replica"
	if fault == "outage" {
		what = "starting the " + a.kind + " server"
	}
	err := t.do(what, func() {
		if fault == "outage" {
			a.plan = outagePlan(t, a)
			return
		}
		switch a.kind {
		case "postgres":
			p := testservers.StartPostgres(t)
			link := proxy(p.Addr())
			r := p.Replica(t, link.Addr())
			a.target, a.dsn = p.Addr(), testservers.PostgresDSN
			a.plan = &failoverPlan{
				what:    "PostgreSQL primary killed (immediate), its pg_basebackup -R streaming replica promoted (pg_ctl promote)",
				cut:     link.Cut,
				kill:    func() string { p.Kill(t); return p.Addr() },
				promote: func() { r.Promote(t) },
				next:    func(string) string { return r.Addr() },
			}
			if fault == "lossless" {
				synchronousStandby(t, p)
				a.plan.what = "PostgreSQL primary killed (immediate), its synchronous standby (synchronous_standby_names '*', synchronous_commit on) promoted (pg_ctl promote)"
			}
		case "mysql":
			p := testservers.StartMariaDB(t, 1)
			r := testservers.StartMariaDB(t, 2)
			link := proxy(p.Addr())
			r.ReplicateSemiSyncFrom(t, p, link.Addr())
			p.CaughtUp(t, r)
			a.target, a.dsn = p.Addr(), testservers.MySQLDSN
			a.plan = &failoverPlan{
				what:    "MariaDB primary killed (SIGKILL), its semi-synchronous replica promoted (STOP SLAVE; RESET SLAVE ALL; read_only off)",
				cut:     link.Cut,
				kill:    func() string { p.Kill(t); return p.Addr() },
				promote: func() { r.Promote(t) },
				next:    func(string) string { return r.Addr() },
			}
		case "redis":
			// r2 replicates from r, so that after r's promotion the new
			// master has a replica to acknowledge WAIT (-replicas), as
			// when Sentinel points the other replicas at it.
			p := testservers.StartRedis(t)
			link := proxy(p.Addr())
			_, port, _ := net.SplitHostPort(link.Addr())
			r := testservers.StartRedis(t, "--replicaof", "127.0.0.1", port)
			r2 := testservers.StartRedis(t, "--replicaof", "127.0.0.1", fmt.Sprint(r.Port))
			p.WaitSynced(t, r)
			r.WaitSynced(t, r2)
			a.target = p.Addr()
			a.plan = &failoverPlan{
				what:    "Redis master killed (SIGKILL), its replica promoted (REPLICAOF NO ONE), which keeps a replica of its own",
				cut:     link.Cut,
				kill:    func() string { p.Kill(t); return p.Addr() },
				promote: func() { r.Do(t, "REPLICAOF", "NO", "ONE") },
				next:    func(string) string { return r.Addr() },
			}
			if fault == "lossless" {
				a.plan.what = "Redis master killed (SIGKILL), its replica, which acknowledged every claim and renewal (WAIT, StoreOptions.Replicas default), promoted (REPLICAOF NO ONE); it keeps a replica of its own"
			}
		}
		if fault == "lossless" {
			a.plan.cut = nil
			a.plan.lossless = true
		}
	})
	if err != nil {
		return err
	}
	a.targets = []string{a.target}
	ap := proxy(a.target) // cannot fail now: the target is on loopback
	a.proxy = ap
	switch a.kind {
	case "redis":
		a.rdb = redis.NewClient(&redis.Options{Addr: ap.Addr(), DialTimeout: 2 * time.Second, MaxRetries: -1})
		return a.rdb.Ping(ctx).Err()
	case "postgres":
		a.db, err = sql.Open("pgx", a.dsn(ap.Addr()))
	default:
		a.db, err = sql.Open("mysql", a.dsn(ap.Addr()))
	}
	if err != nil {
		return err
	}
	return createLeaseTable(ctx, a.db, a.name)
}

// etcdPlan kills the leader of the run's cluster; the proxies to it move
// to the next member.
func etcdPlan(c *etcdCluster) *failoverPlan {
	return &failoverPlan{
		what: "etcd leader killed (its raft node hard-stopped, then its member closed); the proxies to it move to the next member",
		kill: func() string {
			for i, e := range c.members {
				if e != nil && e.Server.Leader() == e.Server.MemberID() {
					// HardStop stops at once, without handing over the
					// leadership; Close alone would serve for its request
					// timeout and then hand it over.
					e.Server.HardStop()
					c.members[i] = nil
					c.closing.Go(e.Close)
					return c.endpoints[i]
				}
			}
			return ""
		},
		next: func(killed string) string {
			for i, e := range c.members {
				if e != nil && c.endpoints[i] != killed {
					return c.endpoints[i]
				}
			}
			return killed
		},
	}
}

// failover is the -failover run's event, at the middle of the run: the
// replica's link is cut -failover-lag before the primary dies. Its own
// churn makes claims made after a lapse fall among the writes the replica
// misses: one worker is partitioned from TTL + 0.2 s before the cut until
// the proxies move (its holders lapse; their nodes expire on the primary
// before the cut), and another is killed at the cut and restarted at once
// (on the SQL and Redis stores its new holders claim the lowest free
// nodes: the lapsed ones; etcd's claim free nodes at random, and etcd
// replicates synchronously, so nothing lies among missed writes there).
func (s *sim) failover(ctx context.Context) {
	at := s.start.Add(s.failoverAt())
	ft := &s.fo
	ft.at, ft.partition, ft.kill = at, -1, -1
	var part *disruption
	if !s.plan.lossless && !s.failoverChurn(ctx, at, &part) {
		return
	}
	if !sleepUntil(ctx, at) {
		return
	}
	s.finishFailover(part)
}

// failoverChurn is a lossy failover's churn of its own, up to the
// primary's death at: the partition of one worker from TTL + 0.2 s before
// the replication cut, the cut, and the kill of another worker at the cut.
// It reports whether ctx is still live.
func (s *sim) failoverChurn(ctx context.Context, at time.Time, partp **disruption) bool {
	ft := &s.fo
	cut := at.Add(-s.c.lag)
	if !sleepUntil(ctx, cut.Add(-s.c.ttl-200*time.Millisecond)) {
		return false
	}
	var part *disruption
	if p := s.pickSlot(); p >= 0 {
		ft.partition = p
		s.mu.Lock()
		part = &disruption{slot: p, kind: "partition", start: time.Now(), inc: s.current[p]}
		s.mu.Unlock()
		s.setPartition(p, "blackhole")
	}
	*partp = part
	if !sleepUntil(ctx, cut) {
		return false
	}
	if s.plan.cut != nil {
		s.plan.cut()
		ft.cut = time.Now()
		fmt.Fprintf(s.log, "fleetsim: replication cut\n")
	}
	if k := s.pickSlot(); k >= 0 {
		ft.kill = k
		go s.disrupt(k, "kill", 0)
	}
	return true
}

// finishFailover kills the primary (etcd: the leader), promotes the
// replica and moves the proxies; part, if any, is the failover's own
// partition, healed once the proxies moved.
func (s *sim) finishFailover(part *disruption) {
	ft := &s.fo
	ft.killed = time.Now()
	ft.killedAddr = s.plan.kill()
	fmt.Fprintf(s.log, "fleetsim: primary (etcd: leader; kube: API server) %s killed\n", ft.killedAddr)
	if s.plan.promote != nil {
		// Promote reports a failure through the servers' tb.
		if err := (&tb{}).do("promoting the replica", s.plan.promote); err != nil {
			ft.err = err
			fmt.Fprintln(s.log, "fleetsim:", err)
		}
	}
	s.moveProxies(ft.killedAddr, s.plan.next(ft.killedAddr))
	ft.moved = time.Now()
	fmt.Fprintf(s.log, "fleetsim: promoted and proxies moved (kube: API server ready again) %v after the kill\n", ft.moved.Sub(ft.killed).Round(time.Millisecond))
	if part != nil {
		s.setPartition(part.slot, "")
		part.end = time.Now()
		s.mu.Lock()
		s.disrupts = append(s.disrupts, *part)
		s.busy[part.slot] = false
		s.mu.Unlock()
		fmt.Fprintf(s.log, "fleetsim: partition of worker %d for %v\n", part.slot, part.end.Sub(part.start).Round(time.Millisecond))
	}
}

// setPartition blackholes or cuts the slot's proxy (mode "blackhole" or
// "cut"), or restores it (mode "").
func (s *sim) setPartition(slot int, mode string) {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	s.pmode[slot] = mode
	applyPartition(s.proxies[slot], mode)
}

func applyPartition(p *tcpproxy.Proxy, mode string) {
	switch mode {
	case "blackhole":
		p.Blackhole()
	case "cut":
		p.Cut()
	default:
		p.Restore()
	}
}

// moveProxies moves every proxy to killed (the workers' and the admin's)
// to next; a worker partitioned at the time stays partitioned.
func (s *sim) moveProxies(killed, next string) {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	var errs []error
	for slot, p := range s.proxies {
		if s.ptarget[slot] != killed {
			continue
		}
		errs = append(errs, p.MoveTo(next))
		s.ptarget[slot] = next
		if s.pmode[slot] != "" {
			applyPartition(p, s.pmode[slot])
		}
	}
	if s.adm.proxy != nil {
		errs = append(errs, s.adm.proxy.MoveTo(next))
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(s.log, "fleetsim: moving proxies:", err)
	}
}

// sleepUntil sleeps until t and reports whether ctx is still live.
func sleepUntil(ctx context.Context, t time.Time) bool {
	sleep(ctx, time.Until(t))
	return ctx.Err() == nil
}

// analyseFailover adds the failover's figures to r: when it happened, and
// for every holder of the fleet the time from the primary's death to its
// first ID after it.
func (s *sim) analyseFailover(r *report, failoverHeals []time.Duration, fenced, notHealed int) {
	ft := s.fo
	r.add("failover", s.plan.what)
	r.add("failover_at", ft.at.Sub(s.start))
	switch {
	case !ft.cut.IsZero():
		r.add("failover_replication_cut_before", ft.killed.Sub(ft.cut))
	case s.plan.lossless:
		r.add("failover_replication_cut_before", "none (lossless)")
	default:
		r.add("failover_replication_cut_before", "none (etcd replicates synchronously)")
	}
	r.add("failover_moved_after", ft.moved.Sub(ft.killed))
	if ft.err != nil {
		r.add("failover_error", ft.err)
	}
	if s.plan.lossless {
		r.add("failover_churn", "none (lossless failover, no churn)")
	} else {
		r.add("failover_churn", fmt.Sprintf("partition of worker %d from TTL + %v before the primary's death until the move, kill and restart of worker %d %v before it",
			ft.partition, s.c.lag+200*time.Millisecond, ft.kill, s.c.lag))
	}
	first := map[int]time.Time{}
	for _, e := range s.events {
		if e.kind != "after" {
			continue
		}
		if t, ok := first[e.holder]; !ok || e.t.Before(t) {
			first[e.holder] = e.t
		}
	}
	var ds []time.Duration
	for _, t := range first {
		ds = append(ds, max(0, t.Sub(ft.at)))
	}
	r.Silent = s.c.holders - len(first)
	r.add("failover_holders_issuing_after", fmt.Sprintf("%d / %d", len(first), s.c.holders))
	r.add("failover_first_id_p50", pct(ds, 0.50))
	r.add("failover_first_id_p99", pct(ds, 0.99))
	r.add("failover_first_id_max", pct(ds, 1))
	r.add("failover_fenced", fenced)
	r.add("failover_healed", len(failoverHeals))
	r.add("failover_not_healed", notHealed)
	r.add("failover_heal_p50", pct(failoverHeals, 0.50))
	r.add("failover_heal_p99", pct(failoverHeals, 0.99))
}

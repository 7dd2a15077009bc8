package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/tools/internal/repo"
	"github.com/idkit-go/idkit/types"
)

// report is a run's outcome; write prints it as "key: value" lines, which
// printTable reads back.
type report struct {
	kv     [][2]string
	Dups   int64
	Silent int // -failover: holders with no ID after the failover
}

func (r *report) add(k string, v any) {
	var s string
	switch v := v.(type) {
	case time.Duration:
		s = v.Round(time.Millisecond).String()
		if v > 0 && v < 10*time.Millisecond {
			s = v.Round(10 * time.Microsecond).String()
		}
	case float64:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	default:
		s = fmt.Sprint(v)
	}
	r.kv = append(r.kv, [2]string{k, s})
}

func (r *report) get(k string) string {
	for _, p := range r.kv {
		if p[0] == k {
			return p[1]
		}
	}
	return ""
}

func (r *report) write(w io.Writer) {
	for _, p := range r.kv {
		fmt.Fprintf(w, "%s: %s\n", p[0], p[1])
	}
}

func (r *report) fileName() string {
	store := r.get("store")
	switch {
	case r.get("fault_mode") != "":
		store += "-" + r.get("fault_mode")
	case r.get("failover") != "":
		store += "-failover"
	}
	return fmt.Sprintf("%s-%sh-%s-%s.txt", store, r.get("holders"), r.get("duration"),
		strings.ReplaceAll(r.get("date")[:16], ":", ""))
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(float64(len(ds))*p+0.5) - 1
	return ds[max(0, min(i, len(ds)-1))]
}

func (s *sim) analyse(end time.Time, cpuSec float64, adm *admin) *report {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &report{}
	c := s.c
	r.add("store", c.store)
	r.add("server", serverVersion(adm))
	r.add("machine", machine())
	r.add("engine", engine())
	r.add("date", time.Now().UTC().Format(time.RFC3339))
	r.add("holders", c.holders)
	r.add("workers", c.workers)
	r.add("pool_per_worker", c.pool)
	if c.libTTL {
		r.add("ttl", "default")
		r.add("renew_every", "default")
	} else {
		r.add("ttl", c.ttl)
		r.add("renew_every", c.ttl/3)
	}
	r.add("duration", c.duration)
	r.add("start", "after each process opened its pool")
	r.add("rate_per_holder", fmt.Sprintf("%v IDs/s, 1 tick in 100 a burst of %d", c.rate, c.burst))
	if c.store == "redis" {
		r.add("redis_replicas", c.replicas)
	}
	if c.fault != "" {
		r.add("fault_mode", c.fault)
		r.add("churn", "none: the fault alone")
	}

	// Duplicates over every ID written.
	var recs []record
	for _, inc := range s.incs {
		b, _ := os.ReadFile(inc.ids)
		recs = readRecords(b, recs)
	}
	ids := make([]int64, len(recs))
	for i, rc := range recs {
		ids[i] = rc.id
	}
	slices.Sort(ids)
	dupNodes := map[int64]int{}
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			r.Dups++
			p, _ := generator.Twitter().Decompose(types.Snowflake(ids[i]))
			dupNodes[p.Node]++
		}
	}
	r.add("ids", len(ids))
	r.add("duplicates", r.Dups)
	if r.Dups > 0 {
		var nodes []string
		for _, n := range slices.Sorted(maps.Keys(dupNodes)) {
			nodes = append(nodes, fmt.Sprintf("%d (%d)", n, dupNodes[n]))
		}
		r.add("duplicate_nodes", strings.Join(nodes, ", "))
	}

	// Claims at the simultaneous start.
	var first, exh, restart []time.Duration
	var last time.Time
	errorsN, firstErr := 0, ""
	reasons := map[string]int{}
	for _, e := range s.events {
		switch e.kind {
		case "claim":
			if len(e.args) < 4 {
				continue
			}
			ns, _ := strconv.ParseInt(e.args[1], 10, 64)
			d := time.Duration(ns)
			if e.args[2] == "1" {
				first = append(first, d)
				if e.t.After(last) {
					last = e.t
				}
			} else {
				restart = append(restart, d)
			}
			if e.args[3] == "1" {
				exh = append(exh, d)
			}
		case "error":
			if errorsN == 0 && len(e.args) > 0 {
				firstErr = strings.Join(e.args, " ")
			}
			errorsN++
		case "fail":
			if len(e.args) > 0 {
				reasons[e.args[0]]++
			}
		}
	}
	r.add("start_claims", len(first))
	r.add("start_claim_p50", pct(first, 0.50))
	r.add("start_claim_p99", pct(first, 0.99))
	r.add("start_claim_max", pct(first, 1))
	r.add("start_all_claimed_after", last.Sub(s.start))
	r.add("restart_claims", len(restart))
	r.add("restart_claim_p50", pct(restart, 0.50))
	r.add("restart_claim_p99", pct(restart, 0.99))
	r.add("exhausted_holders", len(exh))
	r.add("exhausted_wait_p50", pct(exh, 0.50))
	r.add("exhausted_wait_p99", pct(exh, 0.99))
	r.add("exhausted_wait_max", pct(exh, 1))
	r.add("claim_errors", errorsN)
	if firstErr != "" {
		r.add("claim_error_first", firstErr)
	}

	// Churn and healing.
	count := map[string]int{}
	for _, d := range s.disrupts {
		count[d.kind]++
	}
	r.add("partitions", count["partition"])
	r.add("pauses", count["pause"])
	r.add("kills", count["kill"])
	r.add("fail_reasons", fmt.Sprintf("lost %d, expired %d, closed %d, other %d", reasons["lost"], reasons["expired"], reasons["closed"], reasons["other"]))
	h := s.heals(end)
	heals, episodes, notHealed, other := h.heals, h.episodes, h.notHealed, h.other
	r.add("fence_episodes", episodes)
	r.add("healed", len(heals))
	r.add("not_healed", notHealed)
	r.add("ended_by_kill", h.killed)
	r.add("episodes_outside_churn", other)
	r.add("heal_p50", pct(heals, 0.50))
	r.add("heal_p99", pct(heals, 0.99))
	r.add("heal_max", pct(heals, 1))

	// Coordinator load.
	var st [4]int64
	for _, inc := range s.incs {
		inc.mu.Lock()
		for i := range st {
			st[i] += inc.stats[i]
		}
		inc.mu.Unlock()
	}
	secs := end.Sub(s.start).Seconds()
	ops := st[0] + st[1] + st[2]
	r.add("store_calls", fmt.Sprintf("%d (claims %d, renewals %d, releases %d)", ops, st[0], st[1], st[2]))
	r.add("store_calls_per_s", float64(ops)/secs)
	r.add("store_calls_per_holder_s", float64(ops)/secs/float64(c.holders))
	r.add("server_cpu_s", cpuSec)
	r.add("server_cpu_pct_of_core", 100*cpuSec/secs)
	if ops > 0 {
		r.add("server_cpu_per_call", time.Duration(cpuSec*1e9/float64(ops)))
	}
	scope := map[string]string{
		"postgres": "backends serving the fleet",
		"redis":    "whole redis-server (shared with other users)",
		"mysql":    "whole mariadbd (shared with other users)",
		"etcd":     "the fleetsim parent process, which runs the three etcd members",
		"kube":     "every kube-apiserver process of the run (sampled each second) and the fleetsim parent process, which runs its etcd member",
	}[c.store]
	if c.failover && (c.store == "redis" || c.store == "mysql") {
		scope = "every " + map[string]string{"redis": "redis-server", "mysql": "mariadbd"}[c.store] +
			" on the machine: the shared one and the run's primary and replicas"
	}
	r.add("server_cpu_scope", scope)
	if c.failover {
		s.analyseFailover(r, h.failover, h.failoverEpisodes, h.failoverNotHealed)
	}
	if c.fault == "outage" {
		s.analyseOutage(r)
	}
	s.analyseSeries(r, recs, end, last.Sub(s.start))
	return r
}

// healing is what heals found.
type healing struct {
	killed              int             // episodes whose process was killed before they healed
	heals               []time.Duration // from a churn event's end to the next ID
	episodes, notHealed int
	other               int             // episodes outside churn and failover
	failover            []time.Duration // from the proxies' move to the next ID
	failoverEpisodes    int
	failoverNotHealed   int
}

// heals pairs each fence episode (a holder's first failing Next after
// issuing, to its next ID) with the churn event on its process, and
// returns the times from the event's end (partition healed, SIGCONT) to
// the next ID, the number of episodes, those that never issued again, and
// those outside any churn event. An episode whose process a churn kill
// ended before it healed is counted apart (its holder claims again in the
// new process), neither healed nor not healed. In a -failover run, an episode outside
// churn that starts between the replication cut (etcd: the leader's death)
// and one TTL after the proxies moved is the failover's.
func (s *sim) heals(end time.Time) (h healing) {
	foStart, foEnd := s.fo.cut, s.fo.moved.Add(s.c.ttl)
	if foStart.IsZero() {
		foStart = s.fo.killed
	}
	type key struct {
		inc    *incarnation
		holder int
	}
	byHolder := map[key][]event{}
	for _, e := range s.events {
		if e.kind == "fail" || e.kind == "ok" {
			k := key{e.inc, e.holder}
			byHolder[k] = append(byHolder[k], e)
		}
	}
	for k, es := range byHolder {
		slices.SortFunc(es, func(a, b event) int { return a.t.Compare(b.t) })
		for i, e := range es {
			if e.kind != "fail" {
				continue
			}
			var ok *event
			if i+1 < len(es) && es[i+1].kind == "ok" {
				ok = &es[i+1]
			}
			var d *disruption
			killed := false // its process was killed before it issued again
			for j := range s.disrupts {
				x := &s.disrupts[j]
				if x.inc == k.inc && x.kind != "kill" && !e.t.Before(x.start) && !e.t.After(x.end.Add(s.c.ttl)) {
					d = x
				}
				if x.inc == k.inc && x.kind == "kill" && !x.start.Before(e.t) {
					killed = true
				}
			}
			switch {
			case d == nil && s.c.failover && !s.fo.moved.IsZero() && !e.t.Before(foStart) && !e.t.After(foEnd):
				h.failoverEpisodes++
				switch {
				case ok != nil:
					h.failover = append(h.failover, max(0, ok.t.Sub(s.fo.moved)))
				case killed:
					h.killed++
				default:
					h.failoverNotHealed++
				}
				continue
			case d == nil:
				h.other++
			case ok != nil:
				h.heals = append(h.heals, max(0, ok.t.Sub(d.end)))
			case killed:
				h.killed++
			default:
				h.notHealed++
			}
			h.episodes++
		}
	}
	return h
}

func serverVersion(a *admin) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	switch a.kind {
	case "redis":
		info, err := a.rdb.Info(ctx, "server").Result()
		if err == nil {
			for _, l := range strings.Split(info, "\n") {
				if v, ok := strings.CutPrefix(strings.TrimSpace(l), "redis_version:"); ok {
					return "Redis " + v
				}
			}
		}
	case "kube":
		return a.kube.version()
	case "etcd":
		for _, ep := range a.etcd.endpoints { // the first may be the leader a failover killed
			if st, err := a.ecli.Status(ctx, ep); err == nil {
				return "etcd " + st.Version + " (3 members in process)"
			}
		}
	default:
		var v string
		if err := a.db.QueryRowContext(ctx, "SELECT version()").Scan(&v); err == nil {
			if i := strings.Index(v, " on "); i > 0 {
				v = v[:i]
			}
			if a.kind == "mysql" {
				v = "MariaDB " + v
			}
			return v
		}
	}
	return "unknown"
}

func machine() string {
	model := ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
		f.Close()
	}
	return fmt.Sprintf("%d cores, %s, %s, shared with other jobs", runtime.NumCPU(), model, runtime.Version())
}

// engine names the lease engine the run used: the last commit to
// generator/node in the repository fleetsim runs from ("+dirty" if that
// directory has changes not committed), or "unknown".
func engine() string {
	root, err := repo.Root()
	if err != nil {
		return "unknown"
	}
	out, err := exec.Command("git", "-C", root, "log", "-1", "--format=%h", "--", "generator/node").Output()
	if err != nil {
		return "unknown"
	}
	e := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--", "generator/node").Output(); err == nil && len(st) > 0 {
		e += "+dirty"
	}
	return e
}

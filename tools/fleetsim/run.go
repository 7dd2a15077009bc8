package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testdb"
)

// event is one line of a worker's stdout.
type event struct {
	kind   string
	t      time.Time
	holder int
	inc    *incarnation
	args   []string
}

// incarnation is one process of a worker slot; a restart starts another.
type incarnation struct {
	slot, n int
	cmd     *exec.Cmd
	started time.Time
	ids     string
	initial bool
	done    chan struct{}

	mu    sync.Mutex
	stats [4]int64 // claims, renews, releases, ids (last reported)
}

// disruption is one churn event on a worker slot.
type disruption struct {
	slot       int
	kind       string // partition, pause, kill
	start, end time.Time
	inc        *incarnation // the process it hit
}

type sim struct {
	c       config
	log     io.Writer
	self    string
	name    string
	target  string
	proxies []*tcpproxy.Proxy
	start   time.Time // the holders' simultaneous claim
	adm     *admin
	plan    *failoverPlan // -failover: how the coordinator fails over
	fo      failoverTimes // -failover: what happened when
	out     outageTimes   // -fault outage: what happened when

	pmu     sync.Mutex
	pmode   []string // per slot: the partition in force ("", blackhole, cut)
	ptarget []string // per slot: where its proxy forwards

	mu       sync.Mutex
	events   []event
	incs     []*incarnation
	current  []*incarnation // per slot
	busy     []bool
	disrupts []disruption
}

func run(ctx context.Context, c config, log io.Writer) (*report, error) {
	if c.every == 0 {
		c.every = c.duration / 30
	}
	if c.workers < 1 || c.holders < c.workers || c.rate <= 0 {
		return nil, fmt.Errorf("bad sizes: %d holders over %d workers at %v IDs/s", c.holders, c.workers, c.rate)
	}
	c, err := faultConfig(c)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "fleetsim-")
	if err != nil {
		return nil, err
	}
	if c.keep {
		fmt.Fprintf(log, "fleetsim: keeping %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	c.dir = dir
	if c.failover && c.fault == "" && c.lag == 0 {
		c.lag = c.ttl / 2
	}
	s := &sim{c: c, log: log, self: self, name: testdb.Name("fleetsim"),
		current: make([]*incarnation, c.workers), busy: make([]bool, c.workers),
		pmode: make([]string, c.workers), ptarget: make([]string, c.workers)}
	lifetime := c.duration + 10*time.Minute
	adm, err := openAdmin(ctx, c, s.name, lifetime)
	if adm != nil {
		defer adm.close()
	}
	if err != nil {
		return nil, err
	}
	s.target, s.adm, s.plan = adm.target, adm, adm.plan
	for slot := range c.workers {
		s.ptarget[slot] = adm.targets[slot%len(adm.targets)]
		p, err := tcpproxy.NewFor(s.ptarget[slot], lifetime)
		if err != nil {
			return nil, err
		}
		defer p.Close()
		s.proxies = append(s.proxies, p)
	}
	cpu := startCPU(adm)
	s.start = time.Now().Add(3 * time.Second)
	fo := ""
	switch {
	case c.fault == "outage":
		fo = fmt.Sprintf(", store unreachable for %v from %v (link cut, then server stopped), no churn", c.outage, c.faultAt)
	case c.fault == "lossless" && c.store == "etcd":
		fo = fmt.Sprintf(", leader killed at %v (lossless), no churn", c.faultAt)
	case c.fault == "lossless" && c.store == "kube":
		fo = fmt.Sprintf(", API server restarted at %v (lossless), no churn", c.faultAt)
	case c.fault == "lossless":
		fo = fmt.Sprintf(", lossless failover at %v, no churn", c.faultAt)
	case c.failover && c.store == "etcd":
		fo = fmt.Sprintf(", leader killed at %v", c.duration/2)
	case c.failover:
		fo = fmt.Sprintf(", failover at %v (replication cut %v before)", c.duration/2, c.lag)
	}
	ttl := c.ttl.String()
	if c.libTTL {
		ttl = "library default"
	}
	fmt.Fprintf(log, "fleetsim: %s, %d holders over %d workers, TTL %v, %v%s; table/key %s\n",
		c.store, c.holders, c.workers, ttl, c.duration, fo, s.name)
	for slot := range c.workers {
		if err := s.spawn(slot, s.start, true); err != nil {
			s.stopAll()
			return nil, err
		}
	}
	s.chaos(ctx)
	end := time.Now()
	s.stopAll()
	cpuSec := cpu.stop()
	r := s.analyse(end, cpuSec, adm)
	r.write(log)
	if c.out != "" {
		if err := os.MkdirAll(c.out, 0o755); err != nil {
			return r, err
		}
		path := filepath.Join(c.out, r.fileName())
		f, err := os.Create(path)
		if err != nil {
			return r, err
		}
		r.write(f)
		if err := f.Close(); err != nil {
			return r, err
		}
		fmt.Fprintln(log, "fleetsim: wrote", path)
	}
	return r, nil
}

// holdersOf returns the first holder number and the count of a slot.
func (s *sim) holdersOf(slot int) (first, count int) {
	per, extra := s.c.holders/s.c.workers, s.c.holders%s.c.workers
	first = slot*per + min(slot, extra)
	count = per
	if slot < extra {
		count++
	}
	return first, count
}

// leaseTTL is the TTL the workers' leases are given: 0, the library's
// default, with libTTL.
func (s *sim) leaseTTL() time.Duration {
	if s.c.libTTL {
		return 0
	}
	return s.c.ttl
}

// spawn starts a process for slot whose holders claim at start.
func (s *sim) spawn(slot int, start time.Time, initial bool) error {
	s.mu.Lock()
	n := len(s.incs)
	s.mu.Unlock()
	inc := &incarnation{slot: slot, n: n, ids: filepath.Join(s.c.dir, fmt.Sprintf("ids-%d.bin", n)), initial: initial, done: make(chan struct{})}
	first, count := s.holdersOf(slot)
	args := []string{
		"-store", s.c.store, "-addr", s.proxies[slot].Addr(), "-name", s.name, "-ids", inc.ids,
		"-first", strconv.Itoa(first), "-count", strconv.Itoa(count), "-start", strconv.FormatInt(start.UnixNano(), 10),
		"-initial=" + strconv.FormatBool(initial), "-ttl", s.leaseTTL().String(), "-rate", fmt.Sprint(s.c.rate),
		"-burst", strconv.Itoa(s.c.burst), "-pool", strconv.Itoa(s.c.pool), "-replicas", strconv.Itoa(s.c.replicas),
		"-epoch", strconv.FormatInt(s.start.UnixNano(), 10)}
	if s.adm.dsn != nil {
		args = append(args, "-dsn", s.adm.dsn(s.proxies[slot].Addr()))
	}
	if s.c.failover {
		args = append(args, "-mark", strconv.FormatInt(s.start.Add(s.failoverAt()).UnixNano(), 10))
	}
	cmd := exec.Command(s.self, args...)
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	if s.c.keep {
		cmd.Env = append(cmd.Env, leaseLogEnv+"=1")
	}
	stderr, err := os.Create(filepath.Join(s.c.dir, fmt.Sprintf("stderr-%d.txt", n)))
	if err != nil {
		return err
	}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	inc.cmd, inc.started = cmd, time.Now()
	s.mu.Lock()
	s.incs = append(s.incs, inc)
	s.current[slot] = inc
	s.mu.Unlock()
	go func() {
		defer close(inc.done)
		defer stderr.Close()
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			s.record(inc, sc.Text())
		}
		_ = cmd.Wait()
	}()
	return nil
}

func (s *sim) record(inc *incarnation, line string) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return
	}
	ns, err1 := strconv.ParseInt(f[1], 10, 64)
	h, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return
	}
	if f[0] == "stats" && len(f) >= 7 {
		inc.mu.Lock()
		for i := range 4 {
			inc.stats[i], _ = strconv.ParseInt(f[3+i], 10, 64)
		}
		inc.mu.Unlock()
		return
	}
	s.mu.Lock()
	s.events = append(s.events, event{kind: f[0], t: time.Unix(0, ns), holder: h, inc: inc, args: f[3:]})
	s.mu.Unlock()
}

// chaos injects churn from the warm-up's end until the cool-down, then
// waits for the run's end.
func (s *sim) chaos(ctx context.Context) {
	end := s.start.Add(s.c.duration)
	warm := min(20*time.Second, s.c.duration/6)
	cool := 3*s.c.ttl + 5*time.Second
	next := s.start.Add(warm)
	var wg sync.WaitGroup
	defer wg.Wait()
	if s.c.failover {
		wg.Go(func() { s.failover(ctx) })
	}
	if s.c.fault != "" { // one fault, no churn
		if s.c.fault == "outage" {
			wg.Go(func() { s.outage(ctx) })
		}
		sleepUntil(ctx, end)
		return
	}
	for {
		wait := time.Until(next)
		if !next.Before(end.Add(-cool)) {
			wait = time.Until(end)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if !time.Now().Before(end) {
			return
		}
		next = time.Now().Add(time.Duration(float64(s.c.every) * (0.5 + rand.Float64())))
		slot := s.pickSlot()
		if slot < 0 {
			continue
		}
		kind := []string{"partition", "partition", "pause", "pause", "kill"}[rand.IntN(5)]
		wg.Go(func() { s.disrupt(slot, kind, rand.N(time.Second)) })
	}
}

func (s *sim) pickSlot() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var free []int
	for i, b := range s.busy {
		if !b {
			free = append(free, i)
		}
	}
	if len(free) == 0 {
		return -1
	}
	slot := free[rand.IntN(len(free))]
	s.busy[slot] = true
	return slot
}

// disrupt runs one churn event: a partition or pause of 1.2 to 2 TTLs, or
// a SIGKILL followed by a restart after restart.
func (s *sim) disrupt(slot int, kind string, restart time.Duration) {
	s.mu.Lock()
	inc := s.current[slot]
	s.mu.Unlock()
	d := disruption{slot: slot, kind: kind, start: time.Now(), inc: inc}
	hold := time.Duration(float64(s.c.ttl) * (1.2 + 0.8*rand.Float64()))
	switch kind {
	case "partition":
		s.setPartition(slot, []string{"blackhole", "cut"}[rand.IntN(2)])
		time.Sleep(hold)
		s.setPartition(slot, "")
	case "pause":
		_ = inc.cmd.Process.Signal(syscall.SIGSTOP)
		time.Sleep(hold)
		_ = inc.cmd.Process.Signal(syscall.SIGCONT)
	case "kill":
		_ = inc.cmd.Process.Kill()
		<-inc.done
		time.Sleep(restart)
		if err := s.spawn(slot, time.Now(), false); err != nil {
			fmt.Fprintln(s.log, "fleetsim: restart:", err)
		}
	}
	d.end = time.Now()
	fmt.Fprintf(s.log, "fleetsim: %s of worker %d for %v\n", kind, slot, d.end.Sub(d.start).Round(time.Millisecond))
	s.mu.Lock()
	s.disrupts = append(s.disrupts, d)
	s.busy[slot] = false
	s.mu.Unlock()
}

// stopAll sends SIGTERM to every worker (they release their leases) and
// SIGKILL to any still running 15 s later.
func (s *sim) stopAll() {
	s.mu.Lock()
	incs := append([]*incarnation(nil), s.incs...)
	s.mu.Unlock()
	for _, inc := range incs {
		_ = inc.cmd.Process.Signal(syscall.SIGCONT)
		_ = inc.cmd.Process.Signal(syscall.SIGTERM)
	}
	deadline := time.After(15 * time.Second)
	for _, inc := range incs {
		select {
		case <-inc.done:
		case <-deadline:
			_ = inc.cmd.Process.Kill()
			<-inc.done
		}
	}
}

// admin is the run's own connection to the server: it creates and drops
// the table or key, and finds the server processes. In a -failover run it
// also owns the private servers.
type admin struct {
	kind, target string
	targets      []string // the servers the workers reach, one per slot in turn
	db           *sql.DB
	rdb          *redis.Client
	etcd         *etcdCluster
	ecli         *clientv3.Client
	kube         *kubeServer // -store kube: the API server and its etcd member
	name         string

	servers *tb                      // -failover: the private servers' cleanups
	plan    *failoverPlan            // -failover: how the coordinator fails over
	proxy   *tcpproxy.Proxy          // -failover: the admin's path to the primary
	dsn     func(addr string) string // -failover on SQL: the DSN of the private server at addr
}

// openAdmin connects to the run's server, or starts the private ones of a
// -failover run; the admin returned, if any, must be closed even with an
// error.
func openAdmin(ctx context.Context, c config, name string, lifetime time.Duration) (*admin, error) {
	kind := c.store
	a := &admin{kind: kind, name: name}
	var err error
	if (c.failover || c.fault != "") && kind != "etcd" && kind != "kube" {
		switch kind {
		case "postgres", "mysql", "redis":
			return a, openPrivate(ctx, a, c.fault, lifetime)
		}
		return nil, fmt.Errorf("unknown store %q", kind)
	}
	switch kind {
	case "postgres":
		cfg, err := pgx.ParseConfig(testdb.PostgresDSN())
		if err != nil {
			return nil, err
		}
		a.target = fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
		if a.db, err = sql.Open("pgx", testdb.PostgresDSN()); err != nil {
			return nil, err
		}
	case "mysql":
		cfg, err := mysql.ParseDSN(testdb.MySQLDSN())
		if err != nil {
			return nil, err
		}
		a.target = cfg.Addr
		if a.db, err = sql.Open("mysql", testdb.MySQLDSN()); err != nil {
			return nil, err
		}
	case "redis":
		a.target = testdb.RedisAddr()
		a.targets = []string{a.target}
		a.rdb = redis.NewClient(&redis.Options{Addr: a.target})
		err = a.rdb.Ping(ctx).Err()
		return a, err
	case "etcd":
		if a.etcd, err = startEtcd(); err != nil {
			return nil, err
		}
		a.target, a.targets = a.etcd.endpoints[0], a.etcd.endpoints
		if a.ecli, err = etcdClient(a.etcd.endpoints...); err != nil {
			a.etcd.close()
			return nil, err
		}
		switch {
		case c.fault == "outage":
			a.plan = etcdOutagePlan(a.etcd)
		case c.failover:
			a.plan = etcdPlan(a.etcd)
			a.plan.lossless = c.fault == "lossless"
		}
		return a, nil
	case "kube":
		if c.failover && c.fault == "" {
			return nil, fmt.Errorf("-store kube -failover: no replica to fail over to (etcd's raft replicates synchronously); -fault lossless restarts the API server")
		}
		if a.kube, err = startKube(); err != nil {
			return nil, err
		}
		a.target, a.targets = a.kube.Host, []string{a.kube.Host}
		switch {
		case c.fault == "outage":
			a.plan = kubeOutagePlan(a.kube)
		case c.fault == "lossless":
			a.plan = kubeRestartPlan(a.kube)
		}
		return a, nil
	default:
		return nil, fmt.Errorf("unknown store %q", kind)
	}
	if a.target == "localhost" || strings.HasPrefix(a.target, "localhost:") {
		a.target = strings.Replace(a.target, "localhost", "127.0.0.1", 1)
	}
	a.targets = []string{a.target}
	if err = createLeaseTable(ctx, a.db, name); err != nil {
		a.db.Close()
		return nil, err
	}
	return a, nil
}

func (a *admin) close() {
	ctx := context.Background()
	if a.db != nil {
		_, _ = a.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+a.name)
		a.db.Close()
	}
	if a.rdb != nil {
		a.rdb.Del(ctx, a.name, "{"+a.name+"}:held", "{"+a.name+"}:free")
		a.rdb.Close()
	}
	if a.ecli != nil {
		dropEtcd(a.ecli, a.name)
		a.ecli.Close()
	}
	if a.etcd != nil {
		a.etcd.close()
	}
	if a.kube != nil {
		a.kube.close()
	}
	if a.servers != nil {
		a.servers.close()
	}
}

// createLeaseTable creates the lease table name in db before the workers
// start, as a store's first request does: one lease claimed and closed,
// with the shortest TTL, so that the horizon it records (the longest any
// holder used) stays the workers'.
func createLeaseTable(ctx context.Context, db *sql.DB, name string) error {
	l, err := node.NewLease(ctx, sqllease.NewStore(db, sqllease.StoreOptions{Table: name}), node.LeaseOptions{Owner: "fleetsim-setup", TTL: 100 * time.Millisecond})
	if err != nil {
		return err
	}
	return l.Close(ctx)
}

// Command fleetsim is a test harness, not a user tool: it runs a fleet of
// node-lease holders against a real coordinator (PostgreSQL, MariaDB,
// Redis, etcd: a 3-member cluster it starts in its own process, or
// Kubernetes: a real kube-apiserver on an etcd member in its process) under
// churn and reports whether any ID repeated, how fast holders
// healed, what the coordinator carried and how long claims took.
//
// The parent process (the coordinator of the run, not to be confused with
// the lease coordinator) starts -workers copies of itself, each with its
// own connection pool reaching the server through its own TCP proxy, and
// -holders lease holders spread over them; every holder claims a node of
// the Twitter layout (1,024 IDs) and issues a few IDs a second, with
// bursts, writing each ID to its worker's file before using it. After a
// warm-up it injects churn at random: SIGKILL and restart of a worker,
// SIGSTOP/SIGCONT pauses longer than the TTL, and partitions (the worker's
// proxy drops or refuses traffic for longer than the TTL). At the end it
// checks every ID written for duplicates and writes a report.
//
// With -failover the coordinator fails over at the middle of the run. On
// PostgreSQL, MariaDB and Redis the run starts a private primary and a
// replica (internal/testservers; a pg_basebackup -R streaming replica, a
// semi-synchronous GTID replica as the SQL store demands on MariaDB, a
// --replicaof replica that has a replica of its own); -failover-lag
// (TTL/2) before the middle it cuts the replica's link to the primary, so
// the replica misses the last writes, then kills the primary, promotes the
// replica and moves every worker's proxy to it, as a virtual IP moves. On etcd it hard-stops the leader of its cluster and
// moves the proxies to that member. The failover brings churn of its own:
// a worker partitioned from TTL + 0.2 s before the cut until the move (its
// holders lapse) and one killed and restarted at the cut (its new holders
// claim the lapsed nodes, and the replica misses those claims). The report
// adds the failover's figures: every holder must issue again after it, and
// no ID may repeat. fleetsim exits with status 3 if an ID repeated, and
// with status 4 if a holder issued no ID after the failover. Every store
// runs with its default options: on Redis every claim and renewal waits
// for the replicas the store has seen (-replicas sets
// redislease.StoreOptions.Replicas instead).
//
// With -fault the run has one fault and no churn, on private servers and
// the library's default lease options (fault.go): -fault outage makes the
// store unreachable for -outage (every proxy cut, then the server stopped
// and started; etcd: two of three members; Kubernetes: the API server),
// -fault lossless fails over to a replica that lost nothing (etcd: the
// leader killed; Kubernetes: the API server restarted on the same etcd,
// kube.go). Every run writes
// its IDs per second to the report (per_second rows), and a run with a
// fault the rate during and after it as a fraction of the rate before,
// the seconds without an ID and when every holder issued again;
// tools/fleetchart draws them.
//
// It lives in the tools module; from the repository's tools directory:
//
//	go run ./fleetsim -store postgres -duration 5m -out ../docs/fleet/results
//	go run ./fleetsim -store redis -short
//	go run ./fleetsim -store etcd -short
//	go run ./fleetsim -store postgres -failover -duration 60s -holders 200
//	go run ./fleetsim -store redis -fault outage -holders 200 -duration 75s -outage 24s
//	go run ./fleetsim -table ../docs/fleet/results   # the summary table
//
// Servers and names come from internal/testdb (IDKIT_POSTGRES_DSN,
// IDKIT_MYSQL_DSN, IDKIT_REDIS_ADDR); each run uses a table or key of its
// own and drops it afterwards.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// config is one run's settings, shared by the parent and its workers.
type config struct {
	store    string        // postgres, mysql, redis, etcd, kube
	holders  int           // lease holders in all
	workers  int           // worker processes
	duration time.Duration // run time
	ttl      time.Duration // lease TTL
	rate     float64       // IDs per second per holder, besides bursts
	burst    int           // IDs in a burst
	pool     int           // connections per worker
	every    time.Duration // mean time between churn events
	out      string        // directory for the report ("" : stdout only)
	dir      string        // scratch directory for ID files
	short    bool
	failover bool          // a private coordinator that fails over at the middle of the run
	lag      time.Duration // -failover: replication cut this long before the primary dies
	replicas int           // Redis: redislease.StoreOptions.Replicas
	keep     bool          // keep dir; every lease logs to its worker's stderr file there

	fault   string        // "", "outage" or "lossless": a run of one fault, without churn (see fault.go)
	outage  time.Duration // -fault outage: how long the store is unreachable in all
	faultAt time.Duration // -fault: when the fault starts, from the simultaneous claim
	libTTL  bool          // the leases take the library's default TTL (ttl is then only the analysis' horizon)
}

func main() {
	if os.Getenv(workerEnv) != "" {
		os.Exit(workerMain(os.Args[1:]))
	}
	var c config
	var table string
	flag.StringVar(&c.store, "store", "postgres", "coordinator: postgres, mysql (MariaDB), redis, etcd (three members started in this process) or kube (a kube-apiserver, IDKIT_KUBE_APISERVER, on an etcd member in this process)")
	flag.IntVar(&c.holders, "holders", 1000, "lease holders")
	flag.IntVar(&c.workers, "workers", 8, "worker processes")
	flag.DurationVar(&c.duration, "duration", 5*time.Minute, "run time")
	flag.DurationVar(&c.ttl, "ttl", 5*time.Second, "lease TTL (renewal every TTL/3, margin TTL/4)")
	flag.Float64Var(&c.rate, "rate", 2, "IDs per second per holder, besides bursts")
	flag.IntVar(&c.burst, "burst", 200, "IDs in a burst (1 tick in 100 is a burst)")
	flag.IntVar(&c.pool, "pool", 5, "connections per worker process")
	flag.DurationVar(&c.every, "every", 0, "mean time between churn events (default: run time / 30)")
	flag.StringVar(&c.out, "out", "", "directory to write the report to")
	flag.BoolVar(&c.short, "short", false, "a short run for CI: 30 s, 200 holders, TTL 2 s")
	flag.BoolVar(&c.failover, "failover", false, "run on a private primary that dies at the middle of the run; its replica, cut off -failover-lag before, is promoted (etcd: the leader of the in-process cluster is killed)")
	flag.DurationVar(&c.lag, "failover-lag", 0, "with -failover, how long before the primary's death its replica stops receiving writes (default TTL/2)")
	flag.IntVar(&c.replicas, "replicas", 0, "Redis: redislease StoreOptions.Replicas (0, the default: the replicas the store has seen)")
	flag.BoolVar(&c.keep, "keep", false, "keep the run's directory (ID files, and each worker's stderr, where every lease logs) and print its path")
	flag.StringVar(&c.fault, "fault", "", "a run of one fault and no churn, on private servers: outage (every proxy cut for half of -outage, then the server stopped for the rest and started; etcd: two of three members stopped) or lossless (a failover that loses nothing: synchronous standby, semi-sync, a Redis replica that acknowledged every write, an etcd leader change)")
	flag.DurationVar(&c.outage, "outage", 24*time.Second, "with -fault outage, how long the store is unreachable in all")
	flag.DurationVar(&c.faultAt, "fault-at", 0, "with -fault, when the fault starts (default: run time / 3)")
	flag.StringVar(&table, "table", "", "print the markdown summary of the reports in this directory, and exit")
	flag.Parse()
	if table != "" {
		if err := printTable(os.Stdout, table); err != nil {
			fmt.Fprintln(os.Stderr, "fleetsim:", err)
			os.Exit(1)
		}
		return
	}
	if c.short {
		c = shortConfig(c)
	}
	if c.fault != "" {
		ttlSet := false
		flag.Visit(func(f *flag.Flag) { ttlSet = ttlSet || f.Name == "ttl" })
		if !ttlSet {
			// The library's default options, as a service runs them; the
			// analysis takes main's default TTL for its windows.
			c.ttl, c.libTTL = defaultTTL, true
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := run(ctx, c, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleetsim:", err)
		os.Exit(1)
	}
	switch {
	case r.Dups > 0:
		os.Exit(3)
	case r.Silent > 0:
		os.Exit(4)
	}
}

// shortConfig is the CI run: 30 s, 200 holders over 8 workers, TTL 2 s.
func shortConfig(c config) config {
	c.duration, c.holders, c.ttl, c.every = 30*time.Second, 200, 2*time.Second, 2*time.Second
	return c
}

package main

// The -net scenarios: inserts through a proxy that delays every byte by half
// a round trip each way (internal/tcpproxy), where a key made on the client
// spares round trips: bulk loads whose keys the client needs afterwards,
// orders inserted with their lines, and batches replayed after a lost
// reply.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/idkit-go/idkit/internal/tcpproxy"
)

var (
	netScenarios = flag.String("net", "", "run the network scenarios instead (comma-separated: bulk, orders, retry), through a delaying proxy at each -rtt")
	netRTTs      = flag.String("rtt", "0,500us,2ms", "-net: round trips the proxy adds (0: straight to the server, no proxy)")
	netRows      = flag.Int("netrows", 1_000_000, "-net bulk: rows per run")
	netCopy      = flag.Int("copybatch", 100_000, "-net bulk: rows per COPY or LOAD DATA statement")
	netOrders    = flag.Int("orders", 10_000, "-net orders: orders per run (each with -lines lines)")
	netLines     = flag.Int("lines", 10, "-net orders: lines per order")
	netRetries   = flag.Int("retrybatches", 20, "-net retry: batches per run, each of -batch rows, each committed, its reply lost and replayed once")
	netMethods   = flag.String("methods", "", "-net: run only these methods (comma-separated; default all)")
	netAsync     = flag.Bool("asynccommit", false, "-net, PostgreSQL: SET synchronous_commit = off on every connection, so that a COMMIT does not wait for its WAL flush (a session setting; the server's stays)")
	netRender    = flag.String("netrender", "", "run nothing: write the tables of the -net runs this -json file holds")
)

// renderNet writes the tables of the -net runs saved in path.
func renderNet(path, out string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var rep netReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	write(rep.markdown(), out)
	return nil
}

// netRun is one measured run of a -net scenario.
type netRun struct {
	DB, Scenario, Method, Key string
	RTT                       time.Duration // added by the proxy, configured
	MeasuredRTT               time.Duration // median SELECT 1 on the run's connection
	Rep                       int
	Units                     int // rows (bulk, retry) or orders
	Secs                      float64
	Duplicates                int `json:",omitempty"` // retry: rows beyond the ones meant
	Refused                   int `json:",omitempty"` // retry: replays refused as duplicate keys
}

func (r netRun) rate() float64 { return float64(r.Units) / r.Secs }

func (r netRun) String() string {
	s := fmt.Sprintf("%-8s %-6s %-10s %-9s rtt %-6s (measured %6.0f µs) rep %d: %9.0f %s/s",
		r.DB, r.Scenario, r.Method, r.Key, r.RTT, float64(r.MeasuredRTT.Microseconds()), r.Rep, r.rate(), r.unit())
	if r.Scenario == "retry" {
		s += fmt.Sprintf(", %d rows duplicated, %d replays refused", r.Duplicates, r.Refused)
	}
	return s
}

func (r netRun) unit() string {
	if r.Scenario == "orders" {
		return "orders"
	}
	return "rows"
}

// netReport is every run of one -net invocation.
type netReport struct {
	Rows, CopyBatch, Batch, Orders, Lines, RetryBatches, Payload, Reps int
	AsyncCommit                                                        bool `json:",omitempty"`
	Versions                                                           []string
	LoadBefore, LoadAfter                                              string
	Start                                                              time.Time
	Elapsed                                                            time.Duration
	Runs                                                               []netRun
}

// netMethod is one way of inserting a scenario's rows.
type netMethod struct {
	scenario, name string
	keys           func(k keyKind) bool // the key kinds it runs with
	run            func(ctx context.Context, c *netConn, k keyKind, cfg netConfig) (netRun, error)
}

type netConfig struct {
	rows, copyBatch, batch, orders, lines, retries int
	payloads                                       []string
}

// netConn is a database reached through the proxy (or straight, at 0).
type netConn struct {
	s     *server // the database's settings; its db is the direct connection
	proxy *tcpproxy.Proxy
	addr  string // where to connect: the proxy or the server
}

func seqOnly(k keyKind) bool    { return k.seq }
func clientOnly(k keyKind) bool { return !k.seq }
func anyKey(keyKind) bool       { return true }

// runNet runs the -net scenarios and writes their tables.
func runNet(ctx context.Context, dbs []string, kinds []keyKind, reps int, batch, payload int, pgDSN, myDSN, out, jsonOut string) error {
	var rtts []time.Duration
	for _, f := range strings.Split(*netRTTs, ",") {
		f = strings.TrimSpace(f)
		if f == "0" {
			rtts = append(rtts, 0)
			continue
		}
		d, err := time.ParseDuration(f)
		if err != nil {
			return fmt.Errorf("insertbench: -rtt %q: %w", f, err)
		}
		rtts = append(rtts, d)
	}
	cfg := netConfig{rows: *netRows, copyBatch: *netCopy, batch: batch, orders: *netOrders, lines: *netLines, retries: *netRetries,
		payloads: makePayloads(max(*netCopy, batch), payload)}
	scen := strings.Split(*netScenarios, ",")
	var only []string
	if *netMethods != "" {
		only = strings.Split(*netMethods, ",")
	}
	rep := netReport{Rows: cfg.rows, CopyBatch: cfg.copyBatch, Batch: batch, Orders: cfg.orders, Lines: cfg.lines, RetryBatches: cfg.retries, Payload: payload, Reps: reps,
		AsyncCommit: *netAsync, LoadBefore: loadAvg(), Start: time.Now()}
	for _, name := range dbs {
		s, err := newServer(strings.TrimSpace(name), pgDSN, myDSN, "")
		if err != nil {
			return err
		}
		if s.name == "sqlite" {
			return fmt.Errorf("insertbench: -net needs a server, not SQLite")
		}
		if err := s.open(ctx); err != nil {
			return err
		}
		rep.Versions = append(rep.Versions, s.version)
		target, err := s.target()
		if err != nil {
			return err
		}
		var methods []netMethod
		for _, m := range netMethodsFor(s.name) {
			if slices.Contains(scen, m.scenario) && (only == nil || slices.Contains(only, m.name)) {
				methods = append(methods, m)
			}
		}
		for _, rtt := range rtts {
			c := &netConn{s: s, addr: target}
			if rtt > 0 {
				p, err := tcpproxy.NewFor(target, 24*time.Hour)
				if err != nil {
					return err
				}
				p.SetDelay(rtt / 2)
				c.proxy, c.addr = p, p.Addr()
			}
			if rtt == 0 && slices.ContainsFunc(methods, func(m netMethod) bool { return m.scenario == "retry" }) {
				// A lost reply needs the proxy: at 0 it forwards at once.
				p, err := tcpproxy.NewFor(target, 24*time.Hour)
				if err != nil {
					return err
				}
				c.proxy = p
			}
			// Each repetition goes through every method and key kind, in
			// turns that start one further on each time.
			type job struct {
				m netMethod
				k keyKind
			}
			var jobs []job
			for _, m := range methods {
				for _, k := range kinds {
					if m.keys(k) {
						jobs = append(jobs, job{m, k})
					}
				}
			}
			for r := range reps {
				for i := range jobs {
					j := jobs[(i+r)%len(jobs)]
					res, err := j.m.run(ctx, c, j.k, cfg)
					if err != nil {
						return fmt.Errorf("%s %s %s %s rtt %s: %w", s.name, j.m.scenario, j.m.name, j.k.name, rtt, err)
					}
					res.DB, res.Scenario, res.Method, res.Key, res.RTT, res.Rep = s.name, j.m.scenario, j.m.name, j.k.name, rtt, r
					fmt.Fprintln(os.Stderr, res)
					rep.Runs = append(rep.Runs, res)
				}
			}
			if c.proxy != nil {
				c.proxy.Close()
			}
		}
		s.db.Close()
	}
	rep.LoadAfter = loadAvg()
	rep.Elapsed = time.Since(rep.Start)
	if jsonOut != "" {
		b, err := json.MarshalIndent(rep, "", "\t")
		if err != nil {
			return err
		}
		if err := os.WriteFile(jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	write(rep.markdown(), out)
	return nil
}

// netMethodsFor lists the methods of each scenario on database db.
func netMethodsFor(db string) []netMethod {
	if db == "postgres" {
		return pgMethods
	}
	return myMethods
}

// timed runs f and returns its wall time in seconds.
func timed(f func() error) (float64, error) {
	t0 := time.Now()
	err := f()
	return time.Since(t0).Seconds(), err
}

// medianRTT returns the median of 21 round trips of ping.
func medianRTT(ping func() error) (time.Duration, error) {
	var d []time.Duration
	for range 21 {
		t0 := time.Now()
		if err := ping(); err != nil {
			return 0, err
		}
		d = append(d, time.Since(t0))
	}
	slices.Sort(d)
	return d[len(d)/2], nil
}

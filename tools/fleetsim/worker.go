package main

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/etcdlease"
	"github.com/idkit-go/idkit/generator/node/kubelease"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

// workerEnv, when set, makes the process a worker.
const workerEnv = "FLEETSIM_WORKER"

// leaseLogEnv, when set, makes every lease of a worker log to its stderr
// (-keep).
const leaseLogEnv = "FLEETSIM_LEASE_LOG"

// A worker's events, one a line on stdout: kind, Unix ns, holder, and:
//
//	claim   node latency-ns first(1/0) exhausted(1/0)
//	fail    reason (lost, expired, closed, other)
//	ok      node
//	after   (the first ID written after -mark)
//	error   (a claim error other than ErrExhausted)
//	stats   claims renews releases ids  (holder -1)
type emitter struct {
	mu sync.Mutex
}

func (e *emitter) emit(kind string, holder int, rest ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fmt.Fprintln(os.Stdout, append([]any{kind, time.Now().UnixNano(), holder}, rest...)...)
}

// counted counts a worker's store calls, the coordinator load. It does
// not wrap the store: a wrapper would hide the failover detection of
// idkit's stores from the lease (see node.Store). Claims are counted as
// the holders make them; renewals and re-claims from each lease's Stats.
type counted struct {
	claims, releases atomic.Int64
	done             atomic.Int64 // renewals and re-claims of closed leases
	leases           sync.Map     // *node.Lease -> struct{}
}

// renews returns the renewals and re-claims made so far.
func (c *counted) renews() (renews, reclaims int64) {
	c.leases.Range(func(k, _ any) bool {
		st := k.(*node.Lease).Stats()
		renews += int64(st.Renewals + st.Failures)
		reclaims += int64(st.Reclaims)
		return true
	})
	return renews + c.done.Load(), reclaims
}

type workerConfig struct {
	config
	addr, name, ids string
	dsn             string // the server's DSN, host and port replaced by addr ("": internal/testdb's)
	first, count    int
	start           int64
	mark            int64 // Unix ns; each holder reports its first ID written after it ("after")
	epoch           int64 // Unix ns of the run's start: the time base of the ID records
	initial         bool
}

func workerMain(args []string) int {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	var w workerConfig
	fs.StringVar(&w.store, "store", "", "")
	fs.StringVar(&w.addr, "addr", "", "server address (the proxy)")
	fs.StringVar(&w.name, "name", "", "table or key")
	fs.StringVar(&w.ids, "ids", "", "file the issued IDs are appended to")
	fs.StringVar(&w.dsn, "dsn", "", "SQL DSN (default: internal/testdb's)")
	fs.Int64Var(&w.mark, "mark", 0, "Unix ns after which each holder reports its first ID")
	fs.IntVar(&w.replicas, "replicas", 0, "Redis StoreOptions.Replicas")
	fs.IntVar(&w.first, "first", 0, "first holder number")
	fs.IntVar(&w.count, "count", 0, "holders")
	fs.Int64Var(&w.start, "start", 0, "Unix ns at which every holder claims")
	fs.BoolVar(&w.initial, "initial", false, "the run's first incarnation")
	fs.Int64Var(&w.epoch, "epoch", 0, "Unix ns of the run's simultaneous claim, from which each ID record counts its milliseconds")
	fs.DurationVar(&w.ttl, "ttl", 5*time.Second, "")
	fs.Float64Var(&w.rate, "rate", 2, "")
	fs.IntVar(&w.burst, "burst", 200, "")
	fs.IntVar(&w.pool, "pool", 5, "")
	if err := fs.Parse(args); err != nil {
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := work(ctx, w); err != nil {
		fmt.Fprintln(os.Stderr, "fleetsim worker:", err)
		return 2
	}
	return 0
}

// openStore connects to the server at w.addr with a pool of w.pool
// connections and returns the lease store of w.name.
func openStore(ctx context.Context, w workerConfig) (node.Store, func(), error) {
	addr, name, pool := w.addr, w.name, w.pool
	dsn := func(def string) string {
		if w.dsn != "" {
			return w.dsn
		}
		return def
	}
	switch w.store {
	case "postgres":
		cfg, err := pgx.ParseConfig(dsn(testdb.PostgresDSN()))
		if err != nil {
			return nil, nil, err
		}
		var port uint16
		host := ""
		if _, err := fmt.Sscanf(addr, "127.0.0.1:%d", &port); err != nil {
			return nil, nil, fmt.Errorf("address %q: %w", addr, err)
		}
		host = "127.0.0.1"
		cfg.Host, cfg.Port, cfg.ConnectTimeout = host, port, 2*time.Second
		cfg.RuntimeParams["application_name"] = "fleetsim"
		db := stdlib.OpenDB(*cfg)
		return sqlStore(ctx, db, name, pool)
	case "mysql":
		cfg, err := mysql.ParseDSN(dsn(testdb.MySQLDSN()))
		if err != nil {
			return nil, nil, err
		}
		cfg.Addr, cfg.Timeout = addr, 2*time.Second
		db, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			return nil, nil, err
		}
		return sqlStore(ctx, db, name, pool)
	case "redis":
		c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: pool, MinIdleConns: pool, DialTimeout: 2 * time.Second, MaxRetries: -1})
		warm(pool, func() { _ = c.Ping(ctx).Err() })
		return redislease.NewStore(c, redislease.StoreOptions{Key: name, Replicas: w.replicas}), func() { c.Close() }, nil
	case "etcd":
		// One client per process, which multiplexes its requests on one
		// connection to its member: pool does not apply.
		c, err := etcdClient(addr)
		if err != nil {
			return nil, nil, err
		}
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		_, _ = c.Get(cctx, etcdPrefix(name)) // connect before the start
		cancel()
		return etcdlease.NewStore(c, etcdlease.StoreOptions{Prefix: etcdPrefix(name)}), func() { c.Close() }, nil
	case "kube":
		// One clientset per process, as a pod has: its HTTP/2 connection
		// to the API server multiplexes the requests; pool does not apply.
		c, err := kubeClient(addr)
		if err != nil {
			return nil, nil, err
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, _ = c.CoordinationV1().Leases(kubeNamespace).List(cctx, metav1.ListOptions{Limit: 1}) // connect before the start
		cancel()
		return kubelease.NewStore(c.CoordinationV1(), kubelease.StoreOptions{Namespace: kubeNamespace, Prefix: kubePrefix(name)}), func() {}, nil
	}
	return nil, nil, fmt.Errorf("unknown store %q", w.store)
}

func sqlStore(ctx context.Context, db *sql.DB, name string, pool int) (node.Store, func(), error) {
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	s := sqllease.NewStore(db, sqllease.StoreOptions{Table: name})
	// Open the pool before the start, as a service connects before it
	// claims: the claims then measure the store, not connection set-up.
	var conns []*sql.Conn
	var mu sync.Mutex
	warm(pool, func() {
		if c, err := db.Conn(ctx); err == nil {
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	})
	for _, c := range conns {
		c.Close()
	}
	return s, func() { db.Close() }, nil
}

// warm runs f n times at once.
func warm(n int, f func()) {
	var wg sync.WaitGroup
	for range n {
		wg.Go(f)
	}
	wg.Wait()
}

func work(ctx context.Context, w workerConfig) error {
	raw, closeStore, err := openStore(ctx, w)
	if err != nil {
		return err
	}
	defer closeStore()
	s, c := raw, &counted{}
	f, err := os.OpenFile(w.ids, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	var e emitter
	var ids atomic.Int64
	stats := func() {
		renews, reclaims := c.renews()
		e.emit("stats", -1, c.claims.Load()+reclaims, renews, c.releases.Load(), ids.Load())
	}
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				stats()
			}
		}
	}()
	time.Sleep(time.Until(time.Unix(0, w.start)))
	var wg sync.WaitGroup
	for h := w.first; h < w.first+w.count; h++ {
		wg.Go(func() { hold(ctx, w, s, c, f, &e, &ids, h) })
	}
	wg.Wait()
	stats()
	return nil
}

// hold is one lease holder: it claims a node (retrying while the node
// space is full), then issues IDs until ctx ends, reporting each change
// between issuing and failing.
func hold(ctx context.Context, w workerConfig, s node.Store, c *counted, f *os.File, e *emitter, ids *atomic.Int64, h int) {
	opts := node.LeaseOptions{TTL: w.ttl}
	if os.Getenv(leaseLogEnv) != "" {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil)).With("holder", h)
	}
	t0 := time.Now()
	exhausted := false
	var lease *node.Lease
	for lease == nil {
		c.claims.Add(1)
		l, err := node.NewLease(ctx, s, opts)
		switch {
		case err == nil:
			lease = l
		case ctx.Err() != nil:
			return
		case errors.Is(err, node.ErrExhausted):
			exhausted = true
			sleep(ctx, 100*time.Millisecond+rand.N(100*time.Millisecond))
		default:
			e.emit("error", h, fmt.Sprintf("%q", err.Error()))
			sleep(ctx, 200*time.Millisecond+rand.N(200*time.Millisecond))
		}
	}
	e.emit("claim", h, lease.Node(), time.Since(t0).Nanoseconds(), b2i(w.initial), b2i(exhausted))
	c.leases.Store(lease, struct{}{})
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = lease.Close(cctx)
		c.releases.Add(1)
		st := lease.Stats()
		c.leases.Delete(lease)
		c.done.Add(int64(st.Renewals + st.Failures))
		c.claims.Add(int64(st.Reclaims))
	}()
	g, err := node.NewSnowflake(ctx, lease)
	if err != nil {
		e.emit("error", h, fmt.Sprintf("%q", err.Error()))
		return
	}
	layout := generator.Twitter()
	failing := false
	marked := w.mark == 0
	buf := make([]byte, 0, recordSize*w.burst)
	epoch := time.Unix(0, w.epoch)
	interval := time.Duration(float64(time.Second) / w.rate)
	for ctx.Err() == nil {
		sleep(ctx, interval/2+rand.N(interval))
		n := 1
		if rand.IntN(100) == 0 {
			n = w.burst
		}
		buf = buf[:0]
		var failure error
		for range n {
			id, err := g.Next()
			if err != nil {
				failure = err
				break
			}
			buf = appendRecord(buf, uint64(id), h, time.Since(epoch))
		}
		if len(buf) > 0 {
			if _, err := f.Write(buf); err != nil {
				e.emit("error", h, fmt.Sprintf("%q", "write ids: "+err.Error()))
				return
			}
			ids.Add(int64(len(buf) / recordSize))
			if !marked && time.Now().UnixNano() >= w.mark {
				marked = true
				e.emit("after", h)
			}
			if failing {
				p, _ := layout.Decompose(types.Snowflake(binary.LittleEndian.Uint64(buf[len(buf)-recordSize:])))
				e.emit("ok", h, p.Node)
				failing = false
			}
		}
		if failure != nil && !failing && ctx.Err() == nil {
			failing = true
			e.emit("fail", h, reason(failure))
		}
	}
}

// recordSize is the size of one record of a worker's ID file: the ID
// (uint64), the holder (uint32) and the milliseconds since the run's
// simultaneous claim when it was written (uint32), little-endian.
const recordSize = 16

func appendRecord(buf []byte, id uint64, holder int, since time.Duration) []byte {
	buf = binary.LittleEndian.AppendUint64(buf, id)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(holder))
	return binary.LittleEndian.AppendUint32(buf, uint32(max(0, since.Milliseconds())))
}

// record is one ID record read back.
type record struct {
	id     int64
	holder int32
	ms     uint32 // since the run's simultaneous claim
}

func readRecords(b []byte, into []record) []record {
	for i := 0; i+recordSize <= len(b); i += recordSize {
		into = append(into, record{
			id:     int64(binary.LittleEndian.Uint64(b[i:])),
			holder: int32(binary.LittleEndian.Uint32(b[i+8:])),
			ms:     binary.LittleEndian.Uint32(b[i+12:]),
		})
	}
	return into
}

func reason(err error) string {
	switch {
	case errors.Is(err, node.ErrLeaseLost):
		return "lost"
	case errors.Is(err, node.ErrLeaseExpired):
		return "expired"
	case errors.Is(err, node.ErrLeaseClosed):
		return "closed"
	}
	return "other"
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// Command insertbench measures what each kind of primary key costs when
// rows are inserted: the database's own sequence, idkit's Snowflake and
// ObjectID and UUIDv7, google/uuid's v7 and
// v4. It inserts -rows rows of a -payload-byte payload per run into
// PostgreSQL, MariaDB (and SQLite), either as raw multi-row INSERTs through
// database/sql or through GORM's CreateInBatches with gormplugin
// registered, and reports per key kind rows/s over the run and its last
// quarter, the ratio to the sequence in the same repetition, the primary
// key's size, PostgreSQL's WAL bytes and the CPU time per row of the client
// and of the server. Runs alternate key kinds: each repetition goes through
// every kind, starting one kind further on than the last.
//
// Usage (from bench/):
//
//	go run ./cmd/insertbench -rows 3000000 -reps 3 -out results/insert.md
//
// With -autocommit, GORM runs with SkipDefaultTransaction and gets all the
// rows in one CreateInBatches call, so that every -batch-row INSERT commits
// on its own; -warmup runs every kind once, unmeasured, before the
// measured runs; -pgxtypes registers idkit's types on every PostgreSQL
// connection. The run lines on stderr also give the client's heap
// allocations and bytes per row and its garbage collections.
//
// With -net bulk,orders,retry it runs the network scenarios instead,
// through a TCP proxy that adds each -rtt round trip: bulk loads whose keys
// the client holds afterwards (INSERT … RETURNING or LAST_INSERT_ID against
// COPY or LOAD DATA with client keys), orders inserted with their lines (two
// round trips with the sequence, one pipelined with client keys, and GORM's
// association create), and batches replayed after the reply to their
// COMMIT was lost (the rows each key kind duplicates).
//
// It creates and drops tables named insertbench_<kind> (bench48_* with
// -net); it changes no server setting (on PostgreSQL it runs CHECKPOINT
// before every run).
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/gormplugin"
)

func main() {
	var (
		rows     = flag.Int("rows", 3_000_000, "rows per run (3M: UUIDv4's clustered index outgrows InnoDB's default 128 MB buffer pool)")
		dbs      = flag.String("db", "postgres,mariadb", "databases: postgres, mariadb, sqlite")
		modes    = flag.String("mode", "raw,gorm", "modes: raw (multi-row INSERT through database/sql), gorm (CreateInBatches with gormplugin)")
		keys     = flag.String("keys", defaultKeys(), "key kinds")
		batch    = flag.Int("batch", 1000, "rows per INSERT statement")
		chunk    = flag.Int("chunk", 10, "gorm mode: batches per CreateInBatches call (one transaction)")
		prepare  = flag.Bool("prepare", false, "gorm mode: open GORM with PrepareStmt (each INSERT prepared once and kept)")
		autocom  = flag.Bool("autocommit", false, "gorm mode: open GORM with SkipDefaultTransaction and insert all -rows rows in one CreateInBatches call, each -batch-row INSERT committed on its own (-chunk is ignored)")
		pgxReg   = flag.Bool("pgxtypes", false, "PostgreSQL: register idkit's types on every connection with pgxtypes.Register (stdlib.OpenDB with OptionAfterConnect)")
		warmup   = flag.Int("warmup", 0, "before the measured runs, insert this many rows once per key kind, database and mode, unmeasured (0: no warm-up)")
		perStmt  = flag.Bool("rawprepare", false, "raw mode: prepare and close every statement, as GORM does through go-sql-driver/mysql without interpolateParams")
		payload  = flag.Int("payload", 64, "payload bytes per row (at most 1024)")
		reps     = flag.Int("reps", 1, "repetitions: each goes through every key kind")
		firstRep = flag.Int("firstrep", 0, "number of the first repetition (so that another invocation's repetitions start where an earlier one's stopped; -render merges them)")
		pgDSN    = flag.String("pg", env("IDKIT_POSTGRES_DSN", "host=127.0.0.1 port=5432 user=postgres dbname=test sslmode=disable"), "PostgreSQL DSN (pgx)")
		myDSN    = flag.String("mysql", env("IDKIT_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/test"), "MariaDB DSN (go-sql-driver/mysql)")
		litePath = flag.String("sqlite", "", "SQLite database file (default: a new file in the temporary directory)")
		out      = flag.String("out", "", "write the Markdown tables to this file")
		cpuprof  = flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
		memprof  = flag.String("memprofile", "", "write an allocation profile of the whole run to this file")
		jsonOut  = flag.String("json", "", "also write every run's figures to this file, for -render")
		render   = flag.String("render", "", "run nothing: write the tables of the runs the -json files in this comma-separated list hold")
	)
	flag.Parse()
	if *netRender != "" {
		if err := renderNet(*netRender, *out); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *netScenarios != "" {
		var kinds []keyKind
		for _, name := range strings.Split(*keys, ",") {
			k, err := keyByName(strings.TrimSpace(name))
			if err != nil {
				log.Fatal(err)
			}
			kinds = append(kinds, k)
		}
		if err := runNet(context.Background(), strings.Split(*dbs, ","), kinds, *reps, *batch, *payload, *pgDSN, *myDSN, *out, *jsonOut); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *render != "" {
		rep, kinds, err := load(strings.Split(*render, ",")...)
		if err != nil {
			log.Fatal(err)
		}
		if *jsonOut != "" { // the runs of every file, in one
			if err := rep.save(*jsonOut, kinds); err != nil {
				log.Fatal(err)
			}
		}
		write(rep.markdown(kinds), *out)
		return
	}
	if *rows < *batch || *batch < 1 || *payload < 1 || *payload > 1024 || *reps < 1 || *chunk < 1 {
		log.Fatal("insertbench: need rows >= batch >= 1, 1 <= payload <= 1024, reps >= 1, chunk >= 1")
	}
	var kinds []keyKind
	for _, name := range strings.Split(*keys, ",") {
		k, err := keyByName(strings.TrimSpace(name))
		if err != nil {
			log.Fatal(err)
		}
		kinds = append(kinds, k)
	}
	if *autocom {
		*chunk = (*rows + *batch - 1) / *batch
	}
	cfg := config{prepare: *prepare, autocommit: *autocom, perStmt: *perStmt, rows: *rows, batch: *batch, chunk: *chunk * *batch, payloads: makePayloads(*chunk**batch, *payload)}
	ctx := context.Background()

	if *cpuprof != "" {
		f, err := os.Create(*cpuprof)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}

	if *memprof != "" {
		runtime.MemProfileRate = 4096
		defer func() {
			f, err := os.Create(*memprof)
			if err != nil {
				log.Fatal(err)
			}
			defer f.Close()
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				log.Fatal(err)
			}
		}()
	}

	rep := report{prepare: *prepare, autocommit: *autocom, pgxRegister: *pgxReg, interpolate: strings.Contains(*myDSN, "interpolateParams=true"), warmup: *warmup, perStmt: *perStmt, rows: *rows, batch: *batch, chunk: *chunk, payload: *payload, reps: *reps, loadBefore: loadAvg(), start: time.Now()}
	for _, name := range strings.Split(*dbs, ",") {
		s, err := newServer(strings.TrimSpace(name), *pgDSN, *myDSN, *litePath)
		if err != nil {
			log.Fatal(err)
		}
		s.pgxRegister = *pgxReg
		if err := s.open(ctx); err != nil {
			log.Fatal(err)
		}
		rep.versions = append(rep.versions, s.version)
		for _, mode := range strings.Split(*modes, ",") {
			mode = strings.TrimSpace(mode)
			if mode != "raw" && mode != "gorm" {
				log.Fatalf("insertbench: unknown mode %q", mode)
			}
			if *warmup > 0 {
				wcfg := cfg
				wcfg.rows = max(*warmup, cfg.batch)
				for _, k := range kinds {
					if _, err := run(ctx, s, mode, k, wcfg); err != nil {
						log.Fatalf("%s %s %s warm-up: %v", s.name, mode, k.name, err)
					}
				}
			}
			for r := *firstRep; r < *firstRep+*reps; r++ {
				for i := range kinds {
					k := kinds[(i+r)%len(kinds)]
					res, err := run(ctx, s, mode, k, cfg)
					if err != nil {
						log.Fatalf("%s %s %s: %v", s.name, mode, k.name, err)
					}
					res.rep = r
					rep.results = append(rep.results, res)
					fmt.Fprintln(os.Stderr, res)
				}
			}
		}
		s.db.Close()
	}
	rep.loadAfter = loadAvg()
	rep.elapsed = time.Since(rep.start)
	if *jsonOut != "" {
		if err := rep.save(*jsonOut, kinds); err != nil {
			log.Fatal(err)
		}
	}
	write(rep.markdown(kinds), *out)
}

// write prints text and writes it to the file out, if not "".
func write(text, out string) {
	fmt.Print(text)
	if out != "" {
		if err := os.WriteFile(out, []byte(text), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// defaultKeys lists every key kind this build has.
func defaultKeys() string {
	var names []string
	for _, k := range allKeys {
		names = append(names, k.name)
	}
	return strings.Join(names, ",")
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func newServer(name, pg, my, lite string) (*server, error) {
	switch name {
	case "postgres":
		return &server{name: name, label: "PostgreSQL", driver: "pgx", dsn: pg}, nil
	case "mariadb":
		return &server{name: name, label: "MariaDB", driver: "mysql", dsn: my}, nil
	case "sqlite":
		if lite == "" {
			dir, err := os.MkdirTemp("", "insertbench")
			if err != nil {
				return nil, err
			}
			lite = dir + "/insertbench.db"
		}
		return &server{name: name, label: "SQLite", driver: "sqlite", dsn: "file:" + lite}, nil
	}
	return nil, fmt.Errorf("insertbench: unknown database %q", name)
}

type config struct {
	prepare            bool // GORM's PrepareStmt
	autocommit         bool // GORM's SkipDefaultTransaction, one CreateInBatches call
	perStmt            bool // raw: a prepared statement per INSERT
	rows, batch, chunk int
	payloads           []string // chunk payloads; row i gets payloads[i%chunk]
}

// makePayloads returns n random ASCII strings of size bytes each.
func makePayloads(n, size int) []string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]string, n)
	b := make([]byte, size)
	for i := range out {
		for j := range b {
			b[j] = letters[r.IntN(len(letters))]
		}
		out[i] = string(b)
	}
	return out
}

// result is one run: one key kind, one mode, one database.
type result struct {
	db, mode, key     string
	rep, rows         int
	secs, lastSecs    float64 // the whole run, its last quarter
	lastRows          int
	pk, total, wal    int64
	clientCPU, srvCPU float64 // seconds
	mallocs, allocB   uint64  // the client's heap allocations and bytes
	gcs               uint32  // the client's garbage collections
}

func (r result) rate() float64     { return float64(r.rows) / r.secs }
func (r result) lastRate() float64 { return float64(r.lastRows) / r.lastSecs }

func (r result) String() string {
	return fmt.Sprintf("%-8s %-4s %-10s rep %d: %8.0f rows/s, last quarter %8.0f rows/s, pk %6.1f MB, total %6.1f MB, WAL %6.1f MB, client %.2f µs/row, server %.2f µs/row, %.1f allocs/row, %.0f B/row, %d GCs",
		r.db, r.mode, r.key, r.rep, r.rate(), r.lastRate(), mb(r.pk), mb(r.total), mb(r.wal),
		r.clientCPU/float64(r.rows)*1e6, r.srvCPU/float64(r.rows)*1e6,
		float64(r.mallocs)/float64(r.rows), float64(r.allocB)/float64(r.rows), r.gcs)
}

func mb(n int64) float64 { return float64(n) / 1e6 }

// run inserts cfg.rows rows keyed by k into a new table and measures it.
func run(ctx context.Context, s *server, mode string, k keyKind, cfg config) (result, error) {
	res := result{db: s.name, mode: mode, key: k.name, rows: cfg.rows}
	table := "insertbench_" + k.name
	if err := s.createTable(ctx, table, k.column[s.name]); err != nil {
		return res, err
	}
	defer s.dropTable(context.WithoutCancel(ctx), table)

	// mark notes the time when done rows are in, the start of the last
	// quarter; GORM's statements report their rows too, so that one
	// CreateInBatches call (-autocommit) has a last quarter.
	var tq time.Time
	quarter := cfg.rows - cfg.rows/4
	mark := func(done int) {
		if tq.IsZero() && done >= quarter {
			tq, res.lastRows = time.Now(), cfg.rows-done
		}
	}
	var insert func(from, n int) error // inserts rows [from, from+n)
	var step int
	switch mode {
	case "raw":
		ins, err := newRawInserter(ctx, s, table, k, cfg)
		if err != nil {
			return res, err
		}
		defer ins.close()
		insert, step = ins.insert, cfg.batch
	case "gorm":
		gdb, err := s.gormDB(cfg.prepare, cfg.autocommit)
		if err != nil {
			return res, err
		}
		gdb.Logger = logger.Discard
		var opts []gormplugin.Option
		if k.plugin != nil {
			opts = k.plugin()
		}
		if err := gdb.Use(gormplugin.New(opts...)); err != nil {
			return res, err
		}
		var stmtRows int
		if err := gdb.Callback().Create().After("gorm:create").Register("insertbench:progress", func(db *gorm.DB) {
			if db.Error == nil {
				stmtRows += int(db.RowsAffected)
				mark(stmtRows)
			}
		}); err != nil {
			return res, err
		}
		ins := k.gorm()
		insert = func(from, n int) error {
			return ins(gdb.WithContext(ctx).Table(table), cfg.payloads[:n], cfg.batch)
		}
		step = cfg.chunk
	}

	if err := s.settle(ctx); err != nil {
		return res, err
	}
	runtime.GC()
	wal0, err := s.walLSN(ctx)
	if err != nil {
		return res, err
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0, srv0 := clientCPU(), s.serverCPU()
	t0 := time.Now()
	for done := 0; done < cfg.rows; {
		n := min(step, cfg.rows-done)
		if err := insert(done, n); err != nil {
			return res, err
		}
		done += n
		mark(done)
	}
	t1 := time.Now()
	res.clientCPU, res.srvCPU = clientCPU()-cpu0, s.serverCPU()-srv0
	runtime.ReadMemStats(&ms1)
	res.mallocs, res.allocB, res.gcs = ms1.Mallocs-ms0.Mallocs, ms1.TotalAlloc-ms0.TotalAlloc, ms1.NumGC-ms0.NumGC
	res.secs, res.lastSecs = t1.Sub(t0).Seconds(), t1.Sub(tq).Seconds()
	if res.lastRows == 0 { // one step covered the last quarter
		res.lastRows, res.lastSecs = res.rows, res.secs
	}
	wal1, err := s.walLSN(ctx)
	if err != nil {
		return res, err
	}
	res.wal = wal1 - wal0
	res.pk, res.total, err = s.sizes(ctx, table)
	return res, err
}

// rawInserter runs one prepared multi-row INSERT per batch.
type rawInserter struct {
	s               *server
	table           string
	k               keyKind
	cfg             config
	full, part      *sql.Stmt
	partRows        int
	args            []any
	next            func() (any, error)
	ctx             context.Context
	cols            int
	columnsAndValue string
}

func newRawInserter(ctx context.Context, s *server, table string, k keyKind, cfg config) (*rawInserter, error) {
	r := &rawInserter{s: s, table: table, k: k, cfg: cfg, ctx: ctx, cols: 2, columnsAndValue: "(id, payload)"}
	if k.seq {
		r.cols, r.columnsAndValue = 1, "(payload)"
	} else {
		r.next = k.newRaw()
	}
	var err error
	if r.full, err = r.prepare(cfg.batch); err != nil {
		return nil, err
	}
	if rest := cfg.rows % cfg.batch; rest != 0 {
		if r.part, err = r.prepare(rest); err != nil {
			r.full.Close()
			return nil, err
		}
		r.partRows = rest
	}
	r.args = make([]any, cfg.batch*r.cols)
	return r, nil
}

func (r *rawInserter) prepare(rows int) (*sql.Stmt, error) {
	return r.s.db.PrepareContext(r.ctx, "INSERT INTO "+r.table+" "+r.columnsAndValue+" VALUES "+r.s.placeholders(rows, r.cols))
}

func (r *rawInserter) insert(from, n int) error {
	args := r.args[:n*r.cols]
	j := 0
	for i := range n {
		if r.next != nil {
			id, err := r.next()
			if err != nil {
				return err
			}
			args[j] = id
			j++
		}
		args[j] = r.cfg.payloads[(from+i)%len(r.cfg.payloads)]
		j++
	}
	if r.cfg.perStmt {
		stmt, err := r.prepare(n)
		if err != nil {
			return err
		}
		defer stmt.Close()
		_, err = stmt.ExecContext(r.ctx, args...)
		return err
	}
	stmt := r.full
	if n != r.cfg.batch {
		stmt = r.part
	}
	_, err := stmt.ExecContext(r.ctx, args...)
	return err
}

func (r *rawInserter) close() {
	r.full.Close()
	if r.part != nil {
		r.part.Close()
	}
}

// clientCPU returns this process's user plus system CPU seconds.
func clientCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// loadAvg returns the machine's 1, 5 and 15 minute load averages.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], ", ")
}

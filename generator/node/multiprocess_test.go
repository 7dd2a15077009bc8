package node_test

import (
	"bytes"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/internal/testdb"
)

func envInt(t *testing.T, key string, def int) int {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, key)
	return n
}

// worker is one OS process running internal/leaseworker.
type worker struct {
	id     int
	args   []string
	cmd    *exec.Cmd
	out    bytes.Buffer // stdout and stderr of every run, in order
	done   chan error
	killed int
}

func (w *worker) start(t *testing.T, bin string) {
	w.cmd = exec.Command(bin, w.args...)
	w.out.WriteString(fmt.Sprintf("--- start %d\n", w.id))
	w.cmd.Stdout, w.cmd.Stderr = &w.out, &w.out
	require.NoError(t, w.cmd.Start())
	w.done = make(chan error, 1)
	go func(c *exec.Cmd, done chan error) { done <- c.Wait() }(w.cmd, w.done)
}

// TestMultiProcessLeases is the proof that leases keep Snowflake IDs unique
// across processes: IDKIT_MULTIPROC_PROCS processes (default 10) share
// 2^IDKIT_MULTIPROC_BITS node IDs (default 16) through one PostgreSQL lease
// table with a 2 s TTL for IDKIT_MULTIPROC_SECONDS (default 20), inserting
// every ID into a table with a primary key, in batches of 500 with
// IDKIT_MULTIPROC_PAUSE (default 50ms) between batches. Meanwhile processes are killed
// with SIGKILL and restarted, one is stopped (SIGSTOP) for longer than the
// TTL and resumed (it keeps its generator, which must issue again once
// the lease heals), half release and re-claim their lease every few seconds,
// and one runs with its clock 1.5 s behind. At the end: no insert error (a
// duplicate would be one), every process stopped cleanly, and for each node
// ID the holders, in the global order of their claims, issued IDs in
// disjoint, increasing time ranges.
func TestMultiProcessLeases(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-process test skipped in -short mode")
	}
	t.Parallel()
	db := testdb.Postgres(t)
	procs := envInt(t, "IDKIT_MULTIPROC_PROCS", 10)
	run := time.Duration(envInt(t, "IDKIT_MULTIPROC_SECONDS", 20)) * time.Second
	bits := envInt(t, "IDKIT_MULTIPROC_BITS", 4)
	pause := os.Getenv("IDKIT_MULTIPROC_PAUSE")
	if pause == "" {
		pause = "50ms"
	}
	const ttl = 2 * time.Second
	require.GreaterOrEqual(t, procs, 8)

	bin := filepath.Join(t.TempDir(), "leaseworker")
	// go test puts its own GOROOT/bin first on the PATH of the tests.
	build := exec.Command("go", "build", "-o", bin, "github.com/idkit-go/idkit/generator/node/internal/leaseworker")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build leaseworker: %s", out)

	leases, ids, holders, seq := testdb.Name("mp_lease"), testdb.Name("mp_ids"), testdb.Name("mp_holders"), testdb.Name("mp_seq")
	for _, q := range []string{
		"CREATE TABLE " + ids + " (id BIGINT PRIMARY KEY, holder BIGINT NOT NULL)",
		"CREATE TABLE " + holders + " (seq BIGINT PRIMARY KEY, node INT NOT NULL, owner TEXT NOT NULL, pid INT NOT NULL, offset_ms INT NOT NULL)",
		"CREATE SEQUENCE " + seq,
	} {
		_, err := db.Exec(q)
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		for _, q := range []string{"DROP TABLE IF EXISTS " + ids, "DROP TABLE IF EXISTS " + holders,
			"DROP TABLE IF EXISTS " + leases, "DROP SEQUENCE IF EXISTS " + seq} {
			_, _ = db.Exec(q)
		}
	})

	const behind, stopped = 1, 2 // worker indexes: clock behind; SIGSTOPped
	workers := make([]*worker, procs)
	for i := range workers {
		args := []string{"-dsn", testdb.PostgresDSN(), "-leases", leases, "-ids", ids, "-holders", holders,
			"-seq", seq, "-bits", strconv.Itoa(bits), "-ttl", ttl.String(), "-batch", "500", "-pause", pause}
		if i == behind {
			args = append(args, "-offset", "-1500ms")
		}
		if i%2 == 0 && i != stopped {
			args = append(args, "-churn", "3s")
		}
		if i == stopped {
			args = append(args, "-heal") // resumes on the same generator
		}
		workers[i] = &worker{id: i, args: args}
		workers[i].start(t, bin)
	}
	var killers sync.WaitGroup
	defer func() {
		killers.Wait()
		for _, w := range workers { // never leave a process behind on failure
			_ = w.cmd.Process.Kill()
		}
	}()

	// Chaos: SIGKILL a random worker (never the stopped one) every ~1.5 s
	// and restart it; stop one worker for TTL + 1 s half way through.
	start := time.Now()
	kills, stoppedOnce := 0, false
	rng := rand.New(rand.NewPCG(1, 2))
	for time.Since(start) < run {
		time.Sleep(time.Duration(1000+rng.IntN(1000)) * time.Millisecond)
		if !stoppedOnce && time.Since(start) > run/3 {
			stoppedOnce = true
			w := workers[stopped]
			require.NoError(t, w.cmd.Process.Signal(syscall.SIGSTOP))
			killers.Go(func() {
				time.Sleep(ttl + time.Second)
				_ = w.cmd.Process.Signal(syscall.SIGCONT)
			})
			continue
		}
		i := rng.IntN(procs)
		if i == stopped || time.Since(start) > run-2*time.Second {
			continue
		}
		w := workers[i]
		select {
		case err := <-w.done:
			t.Fatalf("worker %d exited on its own: %v\n%s", i, err, w.out.String())
		default:
		}
		require.NoError(t, w.cmd.Process.Kill())
		<-w.done
		w.killed++
		kills++
		time.Sleep(time.Duration(100+rng.IntN(300)) * time.Millisecond)
		w.start(t, bin)
	}
	killers.Wait()

	// Stop everyone; each must exit 0 (a FATAL insert error exits 2).
	for _, w := range workers {
		_ = w.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, w := range workers {
		select {
		case err := <-w.done:
			require.NoError(t, err, "worker %d did not stop cleanly:\n%s", w.id, w.out.String())
		case <-time.After(20 * time.Second):
			t.Fatalf("worker %d did not stop:\n%s", w.id, w.out.String())
		}
		require.NotContains(t, w.out.String(), "FATAL", "worker %d", w.id)
	}
	// The stopped worker's lease lapsed (it may or may not see a refused
	// Next: the lease can heal while the worker inserts) and its generator
	// issued again.
	require.Contains(t, workers[stopped].out.String(), "resumed", "the stopped worker's generator must issue again after the lease heals")

	checkHolders(t, db, ids, holders, bits)
	var total int64
	require.NoError(t, db.QueryRow("SELECT count(*) FROM "+ids).Scan(&total))
	fences := 0
	for _, w := range workers {
		fences += strings.Count(w.out.String(), "fenced")
	}
	var nHolders, behindIDs int64
	require.NoError(t, db.QueryRow("SELECT count(*) FROM "+holders).Scan(&nHolders))
	require.NoError(t, db.QueryRow("SELECT count(*) FROM "+ids+" i JOIN "+holders+" h ON h.seq = i.holder WHERE h.offset_ms < 0").Scan(&behindIDs))
	require.Positive(t, behindIDs, "the worker with its clock behind issued ids")
	t.Logf("%d processes, %d node ids, %v: %d ids (%.0f/s), %d holders, %d SIGKILLs, %d fences, %d ids from the clock-behind worker",
		procs, 1<<bits, run, total, float64(total)/run.Seconds(), nHolders, kills, fences, behindIDs)
}

// checkHolders verifies per node ID that holders in claim order issued IDs
// in disjoint, strictly increasing ticks, and that every ID carries its
// holder's node.
func checkHolders(t *testing.T, db *sql.DB, ids, holders string, bits int) {
	t.Helper()
	var wrong int64
	require.NoError(t, db.QueryRow(fmt.Sprintf(
		"SELECT count(*) FROM %s i JOIN %s h ON h.seq = i.holder WHERE (i.id >> 12) & %d <> h.node",
		ids, holders, 1<<bits-1)).Scan(&wrong))
	require.Zero(t, wrong, "ids whose node bits differ from their holder's node")

	rows, err := db.Query(fmt.Sprintf(`SELECT h.node, h.seq, h.offset_ms, min(i.id), max(i.id), count(*)
		FROM %s h JOIN %s i ON i.holder = h.seq GROUP BY h.node, h.seq, h.offset_ms ORDER BY h.node, h.seq`, holders, ids))
	require.NoError(t, err)
	defer rows.Close()
	type span struct{ node, seq, offset, lo, hi, n int64 }
	var prev *span
	handovers, mixed := 0, 0
	for rows.Next() {
		var s span
		require.NoError(t, rows.Scan(&s.node, &s.seq, &s.offset, &s.lo, &s.hi, &s.n))
		if prev != nil && prev.node == s.node {
			handovers++
			if prev.offset != s.offset {
				mixed++
			}
			// Same node: the ID order is (tick, sequence); the floor makes
			// the next holder start in a later tick.
			require.Less(t, prev.hi>>(12+bits), s.lo>>(12+bits),
				"node %d: holder %d (ids %d..%d) overlaps holder %d (ids %d..%d) in time",
				s.node, prev.seq, prev.lo, prev.hi, s.seq, s.lo, s.hi)
		}
		prev = &s
	}
	require.NoError(t, rows.Err())
	require.Positive(t, handovers, "node ids changed hands")
	t.Logf("%d handovers checked, %d between a clock-behind and a normal holder", handovers, mixed)
}

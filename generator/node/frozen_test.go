package node_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/internal/testdb"
)

// TestFrozenHolder freezes a real process holding a lease, as AWS Lambda,
// Cloud Run and Azure Functions freeze one between requests
// (sony/sonyflake#38): internal/leaseworker A issues on its node, is
// stopped (SIGSTOP) for the TTL and a second more, so its record expires,
// and is resumed (SIGCONT). In "taken" process B claims A's node while A
// is frozen (two nodes: B takes the lowest free or expired, A's); in
// "kept" nobody does (one node). No ID repeats (the IDs table's primary
// key), A never issues on a node B took (per node, holders in claim order
// issued in disjoint time ranges), and A's first ID after the thaw comes
// within a bound that follows from the options: after one claim when the
// node was taken; after the horizon (TTL + unit + MaxClockOffset) when it
// was not, as a lapsed lease's claim waits it out.
func TestFrozenHolder(t *testing.T) {
	if testing.Short() {
		t.Skip("multi-process test skipped in -short mode")
	}
	t.Parallel()
	db := testdb.Postgres(t)
	bin := filepath.Join(t.TempDir(), "leaseworker")
	build := exec.Command("go", "build", "-o", bin, "github.com/idkit-go/idkit/generator/node/internal/leaseworker")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "build leaseworker: %s", out)
	const ttl = 2 * time.Second // the worker's RenewEvery is TTL/5, Margin TTL/4
	const horizon = ttl + time.Millisecond + 500*time.Millisecond
	epoch := generator.Twitter().Spec().Epoch.UnixMilli()
	for _, c := range []struct {
		name  string
		bits  int
		taken bool
	}{{"taken", 1, true}, {"kept", 0, false}} {
		t.Run(c.name, func(t *testing.T) {
			leases, ids, holders, seq := testdb.Name("fz_lease"), testdb.Name("fz_ids"), testdb.Name("fz_holders"), testdb.Name("fz_seq")
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
			args := []string{"-dsn", testdb.PostgresDSN(), "-leases", leases, "-ids", ids, "-holders", holders,
				"-seq", seq, "-bits", strconv.Itoa(c.bits), "-ttl", ttl.String(), "-batch", "200", "-pause", "20ms"}
			a := &worker{id: 0, args: append(args, "-heal")}
			b := &worker{id: 1, args: args}
			a.start(t, bin)
			defer func() { _ = a.cmd.Process.Kill() }()
			issued := func(pid int) int64 {
				var n int64
				require.NoError(t, db.QueryRow(fmt.Sprintf("SELECT count(*) FROM %s i JOIN %s h ON h.seq = i.holder WHERE h.pid = $1", ids, holders), pid).Scan(&n))
				return n
			}
			waitFor(t, 30*time.Second, "A issuing", func() bool { return issued(a.cmd.Process.Pid) > 0 })
			require.NoError(t, a.cmd.Process.Signal(syscall.SIGSTOP))
			time.Sleep(ttl + time.Second) // A's record expires
			if c.taken {
				b.start(t, bin)
				defer func() { _ = b.cmd.Process.Kill() }()
				waitFor(t, 30*time.Second, "B issuing", func() bool { return issued(b.cmd.Process.Pid) > 0 })
				var bn int64
				require.NoError(t, db.QueryRow(fmt.Sprintf("SELECT node FROM %s WHERE pid = $1", holders), b.cmd.Process.Pid).Scan(&bn))
				require.Zero(t, bn, "B took A's node, the lowest expired")
			}
			thaw := time.Now()
			require.NoError(t, a.cmd.Process.Signal(syscall.SIGCONT))
			// After the thaw A's renewal (or its retry) finds the record
			// lost or lapsed; the heal's claim takes node 1 at once
			// (taken) or waits the horizon (kept). Two RenewEvery and
			// 5 s spare a busy machine.
			bound := ttl/5*2 + 5*time.Second
			if !c.taken {
				bound += horizon
			}
			var first int64
			thawTick := thaw.UnixMilli() - epoch
			shift := 12 + c.bits
			waitFor(t, bound+10*time.Second, "A issuing after the thaw", func() bool {
				var v *int64
				require.NoError(t, db.QueryRow(fmt.Sprintf(
					"SELECT min(i.id) FROM %s i JOIN %s h ON h.seq = i.holder WHERE h.pid = $1 AND i.id >= $2",
					ids, holders), a.cmd.Process.Pid, thawTick<<shift).Scan(&v))
				if v != nil {
					first = *v
				}
				return v != nil
			})
			wait := time.UnixMilli(first>>shift + epoch).Sub(thaw)
			t.Logf("%s: A's first ID %v after the thaw", c.name, wait)
			require.Less(t, wait, bound, "A's first ID after the thaw")
			if !c.taken {
				// The re-claim reached the store (on this host's clock)
				// after the thaw; its floor is the horizon past that.
				require.GreaterOrEqual(t, wait, horizon-50*time.Millisecond, "a lapsed claim waits out the horizon")
			}
			time.Sleep(ttl)
			for _, w := range []*worker{a, b} {
				if w.cmd != nil {
					_ = w.cmd.Process.Signal(syscall.SIGTERM)
				}
			}
			for _, w := range []*worker{a, b} {
				if w.cmd == nil {
					continue
				}
				select {
				case err := <-w.done:
					require.NoError(t, err, "worker %d did not stop cleanly:\n%s", w.id, w.out.String())
				case <-time.After(20 * time.Second):
					t.Fatalf("worker %d did not stop:\n%s", w.id, w.out.String())
				}
				require.NotContains(t, w.out.String(), "FATAL", "worker %d", w.id)
			}
			t.Logf("A:\n%s", a.out.String())
			if c.taken {
				checkHolders(t, db, ids, holders, c.bits)
			}
		})
	}
}

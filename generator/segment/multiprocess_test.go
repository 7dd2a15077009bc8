package segment_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator/segment"
	"github.com/idkit-go/idkit/internal/tcpproxy"
)

// The worker's settings, from the environment its parent sets.
const (
	workerDriver = "IDKIT_SEGMENT_WORKER_DRIVER"
	workerDSN    = "IDKIT_SEGMENT_WORKER_DSN"
	workerOut    = "IDKIT_SEGMENT_WORKER_OUT"
	workerFor    = "IDKIT_SEGMENT_WORKER_FOR" // how long it hands out IDs
)

// TestSegmentWorker is a process of TestMultiProcessFailover: it hands
// out IDs of tag "orders" flat out with an allocator of faultOpts for the
// time its parent set, writing each as 8 little-endian bytes to its file.
// Without its parent's environment it does nothing.
func TestSegmentWorker(t *testing.T) {
	dsn := os.Getenv(workerDSN)
	if dsn == "" {
		t.Skip("run by TestMultiProcessFailover")
	}
	d, err := time.ParseDuration(os.Getenv(workerFor))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open(os.Getenv(workerDriver), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, err := os.Create(os.Getenv(workerOut))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<16)
	defer w.Flush()
	a, err := segment.New(context.Background(), db, "orders", faultOpts())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var b [8]byte
	for end := time.Now().Add(d); time.Now().Before(end); {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		id, err := a.Next(ctx)
		cancel()
		if err != nil {
			time.Sleep(5 * time.Millisecond)
			continue
		}
		binary.LittleEndian.PutUint64(b[:], uint64(id))
		if _, err := w.Write(b[:]); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMultiProcessFailover: three OS processes (this test binary run
// again as TestSegmentWorker), each with its allocator and its proxy to
// the primary, hand out IDs flat out for 8 s. After 2 s the replica leaves
// the primary, which takes their fetches for 2 s more and dies; the
// replica is promoted and the proxies move to it. Every ID every process
// handed out is counted.
func TestMultiProcessFailover(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(t *testing.T) replicated
	}{
		{"postgres", func(t *testing.T) replicated { return pgReplicated(t, false) }},
		{"mariadb-semisync", func(t *testing.T) replicated { return mariaReplicated(t, true, 1000) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.make(t)
			// The table and tag exist before the workers start.
			db := openEach(t, 1, p.driver, p.dsn(p.primary))[0]
			a, err := segment.New(context.Background(), db, "orders", faultOpts())
			if err != nil {
				t.Fatal(err)
			}
			a.Close()
			const run = 8 * time.Second
			dir := t.TempDir()
			var cmds []*exec.Cmd
			var proxies []*tcpproxy.Proxy
			for i := range 3 {
				px := tcpproxy.Start(t, p.primary)
				proxies = append(proxies, px)
				cmd := exec.Command(os.Args[0], "-test.run=^TestSegmentWorker$", "-test.count=1")
				cmd.Env = append(os.Environ(), workerDriver+"="+p.driver, workerDSN+"="+p.dsn(px.Addr()),
					workerOut+"="+filepath.Join(dir, strconv.Itoa(i)), workerFor+"="+run.String())
				cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cmds = append(cmds, cmd)
			}
			time.Sleep(2 * time.Second)
			p.caughtUp(t)
			p.cut()
			time.Sleep(2 * time.Second)
			p.kill(t)
			p.promote(t)
			for _, px := range proxies {
				if err := px.MoveTo(p.replica); err != nil {
					t.Fatal(err)
				}
			}
			seen := map[int64]int{}
			repeats, total := 0, 0
			for i, cmd := range cmds {
				if err := cmd.Wait(); err != nil {
					t.Errorf("worker %d: %v", i, err)
				}
				b, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(i)))
				if err != nil {
					t.Fatal(err)
				}
				for j := 0; j+8 <= len(b); j += 8 {
					id := int64(binary.LittleEndian.Uint64(b[j:]))
					if _, dup := seen[id]; dup {
						repeats++
					}
					seen[id] = i
					total++
				}
			}
			t.Logf("%d processes handed out %d ids, %d repeated", len(cmds), total, repeats)
			if repeats > 0 {
				t.Fatalf("%d of %d ids handed out twice across the failover", repeats, total)
			}
		})
	}
}

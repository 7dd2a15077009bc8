package kubelease

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
)

// workerEnv names, in a worker process, the API server, the namespace,
// the file for its IDs and how long to run: host,namespace,file,duration.
const workerEnv = "IDKIT_KUBELEASE_WORKER"

// TestProcesses: three processes (this test binary, run again) run 3
// leases each with TTL 2 s on 8 node IDs, so that one lease always waits
// for a node, and issue; one process is paused (SIGSTOP) past its TTL, so
// that the waiting leases may take its nodes, and resumed; then the API
// server restarts. No ID is returned twice across the processes.
func TestProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an API server and processes")
	}
	s := startAPIServer(t)
	dir := t.TempDir()
	const run = 14 * time.Second
	var cmds []*exec.Cmd
	for i := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWorkerProcess$", "-test.v")
		file := filepath.Join(dir, fmt.Sprint("ids-", i))
		cmd.Env = append(os.Environ(), workerEnv+"="+s.Host+",default,"+file+","+run.String())
		out, err := os.Create(filepath.Join(dir, fmt.Sprint("log-", i)))
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	time.Sleep(3 * time.Second)
	_ = cmds[0].Process.Signal(syscall.SIGSTOP)
	time.Sleep(3 * time.Second)
	_ = cmds[0].Process.Signal(syscall.SIGCONT)
	time.Sleep(time.Second)
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	var all []int64
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			log, _ := os.ReadFile(filepath.Join(dir, fmt.Sprint("log-", i)))
			t.Fatalf("worker %d: %v: %s", i, err, tail(log, 3000))
		}
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprint("ids-", i)))
		if err != nil {
			t.Fatal(err)
		}
		n := len(b) / 8
		for j := range n {
			all = append(all, int64(binary.LittleEndian.Uint64(b[8*j:])))
		}
		t.Logf("worker %d: %d IDs", i, n)
		if log, _ := os.ReadFile(filepath.Join(dir, fmt.Sprint("log-", i))); i == 0 {
			t.Logf("paused worker's log: %s", tail(log, 1500))
		}
	}
	slices.Sort(all)
	dups := 0
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			dups++
		}
	}
	t.Logf("%d IDs from 3 processes, %d returned twice", len(all), dups)
	if dups != 0 || len(all) == 0 {
		t.Errorf("%d IDs returned twice of %d", dups, len(all))
	}
}

// TestWorkerProcess is a worker of TestProcesses (skipped otherwise): 3
// leases on one store and 8 node IDs, each issuing 16 IDs every 2 ms,
// written to the file as they are returned.
func TestWorkerProcess(t *testing.T) {
	v := os.Getenv(workerEnv)
	if v == "" {
		t.Skip("a worker of TestProcesses")
	}
	parts := strings.SplitN(v, ",", 4)
	if len(parts) != 4 {
		t.Fatalf("%s=%q", workerEnv, v)
	}
	host, ns, file := parts[0], parts[1], parts[2]
	run, err := time.ParseDuration(parts[3])
	if err != nil {
		t.Fatal(err)
	}
	cfg := (&apiServer{}).Config(host, adminToken)
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	store := NewStore(c.CoordinationV1(), StoreOptions{Namespace: ns})
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	defer w.Flush()
	ctx := context.Background()
	ids := make(chan int64, 4096)
	end := time.Now().Add(run)
	spec := generator.Twitter().Spec()
	spec.NodeBits, spec.Name = 3, "kubelease-processes"
	layout, err := generator.NewLayout(spec)
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	for range 3 {
		go func() {
			var l *node.Lease
			var err error
			for {
				if l, err = node.NewLease(ctx, store, node.LeaseOptions{TTL: 2 * time.Second, Logger: logger}, generator.WithLayout(layout)); err == nil {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			defer l.Close(ctx)
			g, err := node.NewSnowflake(ctx, l)
			if err != nil {
				return
			}
			for time.Now().Before(end) {
				for range 16 {
					id, err := g.Next()
					if err != nil {
						break
					}
					ids <- int64(id)
				}
				time.Sleep(2 * time.Millisecond)
			}
		}()
	}
	var b [8]byte
	for time.Now().Before(end.Add(500 * time.Millisecond)) {
		select {
		case id := <-ids:
			binary.LittleEndian.PutUint64(b[:], uint64(id))
			_, _ = w.Write(b[:])
		case <-time.After(100 * time.Millisecond):
		}
	}
	for {
		select {
		case id := <-ids:
			binary.LittleEndian.PutUint64(b[:], uint64(id))
			_, _ = w.Write(b[:])
		default:
			return
		}
	}
}

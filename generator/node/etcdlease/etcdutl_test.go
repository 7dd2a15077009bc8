package etcdlease_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Real snapshot restores: the tests save a snapshot through the
// maintenance API (as etcdctl snapshot save does) and restore it with
// etcdutl snapshot restore, the binary built from the Go module proxy at
// the etcd version this module's tests use (IDKIT_ETCDUTL names one
// already built). They are store-fault tests: IDKIT_FAULTS=1 runs them.

// faults skips t unless IDKIT_FAULTS is set.
func faults(t *testing.T) {
	t.Helper()
	if os.Getenv("IDKIT_FAULTS") == "" {
		t.Skip("a store-fault test, which builds etcdutl and restores snapshots: IDKIT_FAULTS=1 runs it")
	}
}

var (
	etcdutlOnce sync.Once
	etcdutlPath string
	etcdutlErr  error
)

// etcdVersion is the version of go.etcd.io/etcd/server/v3 that the
// module's tests build with, as the go command reports it from the
// package's directory (a test binary's build information lists no
// dependencies).
func etcdVersion() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{if .Replace}}{{.Replace.Version}}{{else}}{{.Version}}{{end}}", "go.etcd.io/etcd/server/v3").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m go.etcd.io/etcd/server/v3: %w", err)
	}
	v := strings.TrimSpace(string(out))
	if v == "" {
		return "", fmt.Errorf("go list -m go.etcd.io/etcd/server/v3: no version")
	}
	return v, nil
}

// etcdutl returns the path of etcdutl at the etcd version in use, built
// once into the user's cache directory (a couple of minutes on 2 cores).
// It fails t if the build fails.
func etcdutl(t *testing.T) string {
	t.Helper()
	etcdutlOnce.Do(func() {
		if p := os.Getenv("IDKIT_ETCDUTL"); p != "" {
			etcdutlPath = p
			return
		}
		v, err := etcdVersion()
		if err != nil {
			etcdutlErr = err
			return
		}
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		out := filepath.Join(cache, "idkit", "etcdutl-"+v)
		if _, err := os.Stat(out); err == nil {
			etcdutlPath = out
			return
		}
		etcdutlErr = buildEtcdutl(v, out)
		etcdutlPath = out
	})
	if etcdutlErr != nil {
		t.Fatalf("build etcdutl: %v", etcdutlErr)
	}
	return etcdutlPath
}

// buildEtcdutl builds go.etcd.io/etcd/etcdutl/v3 at version v to out, in
// a module of its own (etcdutl's go.mod has replace lines, so go install
// pkg@version refuses it).
func buildEtcdutl(v, out string) error {
	src, err := os.MkdirTemp("", "etcdutl-build")
	if err != nil {
		return err
	}
	defer os.RemoveAll(src)
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module etcdutlbuild\n\ngo 1.26.0\n"), 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.%d", out, os.Getpid())
	for _, args := range [][]string{
		{"get", "go.etcd.io/etcd/etcdutl/v3@" + v},
		{"build", "-trimpath", "-o", tmp, "go.etcd.io/etcd/etcdutl/v3"},
	} {
		cmd := exec.Command("go", args...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %v: %v: %s", args, err, b)
		}
	}
	return os.Rename(tmp, out) // atomic: another test binary may build it too
}

// saveSnapshot writes a snapshot of the member c reaches to a new file,
// as etcdctl snapshot save does, and returns its path.
func saveSnapshot(t *testing.T, c *clientv3.Client) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := c.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := filepath.Join(t.TempDir(), "snapshot.db")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, r); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// restoreSnapshot stops m, replaces its data with etcdutl snapshot
// restore of snap (onto the same member name and peer URL, with the
// cluster token given: the conformance token keeps the cluster ID, another
// makes a new one; extra are more flags, such as --bump-revision), and
// starts it again on its ports. It returns how long m was down.
func (m *member) restoreSnapshot(t *testing.T, snap, token string, extra ...string) time.Duration {
	t.Helper()
	bin := etcdutl(t)
	t0 := time.Now()
	m.stop()
	if err := os.RemoveAll(m.dir); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"snapshot", "restore", snap, "--data-dir", m.dir, "--name", "m0",
		"--initial-cluster", "m0=" + m.peer.String(), "--initial-cluster-token", token,
		"--initial-advertise-peer-urls", m.peer.String()}, extra...)
	if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("etcdutl %v: %v: %s", args, err, b)
	}
	m.start(t)
	return time.Since(t0)
}

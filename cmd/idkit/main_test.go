package main_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// idkit is the path of the binary built once by TestMain.
var idkit string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "idkit-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	idkit = filepath.Join(dir, "idkit")
	cmd := exec.Command(goTool(), "build", "-o", idkit, ".")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building idkit: %v\n", err)
		return 1
	}
	return m.Run()
}

// goTool finds the go command of the toolchain running the tests.
func goTool() string {
	exe := "go"
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	//lint:ignore SA1019 the GOROOT the test binary was built with is the toolchain running the tests (GOTOOLCHAIN may have switched it), which is the one wanted
	if p := filepath.Join(runtime.GOROOT(), "bin", exe); fileExists(p) {
		return p
	}
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if p := filepath.Join(strings.TrimSpace(string(out)), "bin", exe); fileExists(p) {
			return p
		}
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// result is what one run of the binary produced.
type result struct {
	stdout, stderr string
	code           int
}

// run runs the binary with args and stdin in a clean environment: TZ is
// Asia/Tokyo (UTC+9, no daylight saving) and IDKIT_* variables are unset
// unless env sets them.
func run(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(idkit, args...)
	cmd.Env = append([]string{"TZ=Asia/Tokyo", "PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir()}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running idkit %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

// check fails the test if r's exit status is not code or an output lacks
// one of its wanted parts.
func (r result) check(t *testing.T, code int, stdoutHas, stderrHas []string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	for _, s := range stdoutHas {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
		}
	}
	for _, s := range stderrHas {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
	if stderrHas == nil && r.stderr != "" {
		t.Errorf("unexpected stderr:\n%s", r.stderr)
	}
}

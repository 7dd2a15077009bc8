package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// runStdin runs the binary with args and the file f as its standard input.
func runStdin(t *testing.T, f *os.File, args ...string) result {
	t.Helper()
	cmd := exec.Command(idkit, args...)
	cmd.Env = []string{"TZ=Asia/Tokyo", "HOME=" + os.TempDir()}
	cmd.Stdin = f
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

// TestEmptyStdinDevice checks that standard input from /dev/null, a
// character device but no terminal, is read as an empty input, as a pipe
// or an empty file is: nothing printed, exit status 0. Only a terminal
// gets the usage instead.
func TestEmptyStdinDevice(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	empty, err := os.Create(t.TempDir() + "/empty")
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	for _, cmd := range []string{"inspect", "convert"} {
		for _, f := range []*os.File{null, empty} {
			r := runStdin(t, f, cmd)
			if r.code != 0 || r.stdout != "" || r.stderr != "" {
				t.Errorf("idkit %s < %s: exit status %d, stdout %q, stderr %q; want 0 and nothing", cmd, f.Name(), r.code, r.stdout, r.stderr)
			}
		}
		// The same from a pipe.
		run(t, "", nil, cmd).check(t, 0, nil, nil)
	}
	// Reading /dev/null is not mistaken for a terminal in the other
	// commands either: public encode reads no IDs.
	r := runStdin(t, null, "public", "encode", "--key-file", os.DevNull)
	if r.code != 2 || !strings.Contains(r.stderr, "key ring is empty") {
		t.Errorf("public encode --key-file /dev/null: %d, %q", r.code, r.stderr)
	}
}

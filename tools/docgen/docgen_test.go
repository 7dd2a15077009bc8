package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/tools/internal/repo"
)

// TestGeneratedFilesCurrent regenerates docs/generated and compares: the
// figures the docs quote are those of the current code and go.mod. The
// figures depend on the Go release (the standard library's packages, the
// linker), so a file is compared only when it was made with this one.
func TestGeneratedFilesCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list and go build")
	}
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	files, err := generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		have, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(have), "("+runtime.Version()+",") {
			t.Logf("%s made with another Go release; not compared", name)
			continue
		}
		if string(have) != want {
			t.Errorf("%s is stale: run go run ./docgen in tools/\nhave:\n%s\nwant:\n%s", name, have, want)
		}
	}
}

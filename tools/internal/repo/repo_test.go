package repo

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRoot(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	// This package is tools/internal/repo below the root.
	wd, _ := os.Getwd()
	if want := filepath.Join(root, "tools", "internal", "repo"); wd != want {
		t.Errorf("Root() = %s; working directory %s is not %s", root, wd, want)
	}
	if _, err := os.Stat(filepath.Join(root, "README.md")); err != nil {
		t.Error(err)
	}
}

func TestPublicPackages(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := PublicPackages(root)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, d := range dirs {
		have[d] = true
	}
	for _, want := range []string{"types", "generator", "generator/node", "gormplugin", "sqltypes"} {
		if !have[want] {
			t.Errorf("%s missing from %v", want, dirs)
		}
	}
	for _, not := range []string{".", "cmd/idkit", "internal/sqlcol", "tools/apicount", "examples/quickstart", "mongocompat/mongotest"} {
		if have[not] {
			t.Errorf("%s is not a public package of the root module", not)
		}
	}
}

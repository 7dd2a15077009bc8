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

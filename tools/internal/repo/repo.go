// Package repo finds the idkit repository's root directory for the
// developer tools, wherever in the repository they run from.
package repo

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Module is the import path of idkit's root module.
const Module = "github.com/idkit-go/idkit"

// Root returns the directory of the go.mod that declares module [Module]:
// the nearest such directory at or above the working directory.
func Root() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if modulePath(filepath.Join(d, "go.mod")) == Module {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod of module %s at or above %s", Module, wd)
		}
	}
}

// modulePath returns the module path the go.mod file at name declares, or
// "" if there is none.
func modulePath(name string) string {
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

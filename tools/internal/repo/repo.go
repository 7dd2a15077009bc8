// Package repo finds the idkit repository's root directory for the
// developer tools, wherever in the repository they run from.
package repo

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
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

// PublicPackages returns the directories, relative to root and with
// forward slashes, of the root module's public packages: every directory
// holding a non-main package in a non-test Go file, except those under
// internal/, testdata/, examples/, bench/, a directory starting with "." or
// "_", and other modules (a directory with a go.mod of its own).
func PublicPackages(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root {
			name := d.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				name == "testdata" || name == "internal" || name == "examples" || name == "bench" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		ok, err := hasLibraryPackage(path)
		if err != nil || !ok {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		dirs = append(dirs, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(dirs)
	return dirs, err
}

// hasLibraryPackage reports whether dir holds a non-test Go file whose
// package is not main.
func hasLibraryPackage(dir string) (bool, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return false, err
	}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), n, nil, parser.PackageClauseOnly)
		if err != nil {
			return false, err
		}
		if f.Name.Name != "main" {
			return true, nil
		}
	}
	return false, nil
}

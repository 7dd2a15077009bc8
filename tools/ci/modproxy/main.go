// Command modproxy writes module versions taken from git tags into a
// directory laid out as a Go module proxy (GOPROXY=file://DIR):
// MODULE/@v/list, VERSION.info, VERSION.mod and VERSION.zip, the zip built
// by golang.org/x/mod/zip from the tagged commit as a proxy builds it.
//
// Usage: modproxy -repo CLONE -out DIR TAG...
//
// A tag is VERSION for the module at the repository's root or DIR/VERSION for
// the module in DIR.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

func main() {
	repo := flag.String("repo", ".", "git repository holding the tags")
	out := flag.String("out", "", "proxy directory to write")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		log.Fatal("usage: modproxy -repo CLONE -out DIR TAG...")
	}
	for _, tag := range flag.Args() {
		if err := add(*repo, *out, tag); err != nil {
			log.Fatalf("modproxy: %s: %v", tag, err)
		}
	}
}

func add(repo, out, tag string) error {
	dir, version := "", tag
	if i := strings.LastIndex(tag, "/"); i >= 0 {
		dir, version = tag[:i], tag[i+1:]
	}
	if !semver.IsValid(version) {
		return fmt.Errorf("%q is not a semantic version", version)
	}
	gomod, err := git(repo, "show", tag+":"+path.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	modPath := modfile.ModulePath(gomod)
	if modPath == "" {
		return fmt.Errorf("no module line in %s/go.mod", dir)
	}
	escaped, err := module.EscapePath(modPath)
	if err != nil {
		return err
	}
	vdir := filepath.Join(out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(vdir, version)

	zf, err := os.Create(base + ".zip")
	if err != nil {
		return err
	}
	mv := module.Version{Path: modPath, Version: version}
	if err := modzip.CreateFromVCS(zf, mv, repo, tag, dir); err != nil {
		zf.Close()
		return err
	}
	if err := zf.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(base+".mod", gomod, 0o644); err != nil {
		return err
	}
	when, err := git(repo, "log", "-1", "--format=%cI", tag)
	if err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(string(when)))
	if err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, t.UTC()})
	if err != nil {
		return err
	}
	if err := os.WriteFile(base+".info", info, 0o644); err != nil {
		return err
	}
	list, err := os.OpenFile(filepath.Join(vdir, "list"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(list, version); err != nil {
		list.Close()
		return err
	}
	if err := list.Close(); err != nil {
		return err
	}
	fmt.Printf("modproxy: %s@%s\n", modPath, version)
	return nil
}

func git(repo string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return b, nil
}

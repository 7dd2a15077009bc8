// Command docgen writes the figures the documentation quotes about what
// idkit compiles, so that no figure is copied by hand: run
// `go run ./docgen` in tools/ (or `go -C tools run ./docgen` from the
// root) after a dependency change and commit docs/generated. Its test
// fails when the files are stale.
//
// It writes docs/generated/packages.md (for each package, the packages
// `go list -deps` lists and the modules besides idkit and the standard
// library) and docs/generated/nogorm.md (a program that only prints an
// ObjectID, built with and without -tags idkit_nogorm: packages compiled
// and binary size). Then it copies every generated file into the blocks of
// README.md and docs/*.md that include it, between
// "<!-- generated from PATH -->" and "<!-- end generated -->" (files other
// tools write, such as bench/results/summary.md, included).
package main

import (
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"

	"github.com/idkit-go/idkit/tools/internal/repo"
)

// pkg is a package whose imports the table lists, and the module directory
// (relative to the repository root) to list it from.
type pkg struct{ dir, path string }

var pkgs = []pkg{
	{".", "types"}, {".", "generator"}, {".", "generator/node"}, {".", "generator/node/redislease"},
	{".", "generator/meteor"}, {".", "generator/segment"}, {".", "gormplugin"}, {".", "sqltypes"},
	{".", "pgxtypes"}, {".", "mongocompat"}, {".", "mongocompat/mongov2"}, {".", "mongocompat/mongov1"},
	{"mongocompat/mongotest", "mongocompat/mongotest"}, {".", "publicid"}, {".", "cmd/idkit"},
}

const modulePath = repo.Module

// grouped names module families that the table shows as one entry.
var grouped = regexp.MustCompile(`^(go\.opentelemetry\.io|google\.golang\.org|github\.com/prometheus|github\.com/jackc|modernc\.org|golang\.org/x|github\.com/FerretDB)/.*`)

func main() {
	root, err := repo.Root()
	if err != nil {
		log.Fatal(err)
	}
	files, err := generate(root)
	if err != nil {
		log.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	if err := include(root); err != nil {
		log.Fatal(err)
	}
}

// block is a generated block of a Markdown file.
var block = regexp.MustCompile(`(?s)(<!-- generated from ([^ ]+) -->\n)(.*?)(<!-- end generated -->)`)

// include copies each generated file into the blocks that include it.
func include(root string) error {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return err
	}
	for _, name := range append(docs, filepath.Join(root, "README.md")) {
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		var ferr error
		out := block.ReplaceAllFunc(b, func(m []byte) []byte {
			g := block.FindSubmatch(m)
			text, err := os.ReadFile(filepath.Join(root, string(g[2])))
			if err != nil {
				ferr = err
				return m
			}
			return []byte(string(g[1]) + strings.TrimRight(string(text), "\n") + "\n" + string(g[4]))
		})
		if ferr != nil {
			return fmt.Errorf("%s: %w", name, ferr)
		}
		if string(out) != string(b) {
			if err := os.WriteFile(name, out, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// generate returns the generated files by path relative to root.
func generate(root string) (map[string]string, error) {
	p, err := packagesTable(root)
	if err != nil {
		return nil, err
	}
	n, err := nogormTable(root)
	if err != nil {
		return nil, err
	}
	return map[string]string{"docs/generated/packages.md": p, "docs/generated/nogorm.md": n}, nil
}

// The platform the figures are for: the package lists depend on the target
// and on cgo (with cgo, net and what imports it also compile runtime/cgo),
// so they are fixed rather than taken from the machine.
const goos, goarch = "linux", "amd64"

// platform names the Go release and target of the figures.
func platform() string {
	return fmt.Sprintf("%s, %s/%s, CGO_ENABLED=0", runtime.Version(), goos, goarch)
}

// goCmd runs the go command in dir for the fixed platform and returns its
// standard output.
func goCmd(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s in %s: %w", strings.Join(args, " "), dir, err)
	}
	return string(out), nil
}

// deps returns the packages `go list -deps` lists for the package at
// import path path, listed from dir, and the modules they come from besides
// idkit's own.
func deps(dir, path string, tags string) (n int, mods []string, err error) {
	out, err := goCmd(dir, "list", "-deps", "-tags", tags, "-f", "{{.ImportPath}} {{with .Module}}{{.Path}}{{end}}", path)
	if err != nil {
		return 0, nil, err
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		n++
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[1], modulePath) {
			continue
		}
		seen[grouped.ReplaceAllString(f[1], "$1/...")] = true
	}
	for m := range seen {
		mods = append(mods, m)
	}
	sort.Strings(mods)
	return n, mods, nil
}

func packagesTable(root string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Packages compiled by importing each package (%s):\n\n", platform())
	fmt.Fprintf(&b, "| package | packages compiled | modules besides idkit and the standard library |\n|---|---:|---|\n")
	for _, p := range pkgs {
		n, mods, err := deps(filepath.Join(root, p.dir), modulePath+"/"+p.path, "")
		if err != nil {
			return "", err
		}
		list := "none"
		if len(mods) > 0 {
			list = "`" + strings.Join(mods, "`, `") + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %d | %s |\n", p.path, n, list)
	}
	return b.String(), nil
}

// nogormTable builds tools/docgen/objectidonly (in the tools module, whose
// replace makes it build the checkout's idkit) with and without the
// idkit_nogorm tag (-trimpath, no VCS stamp) and gives its packages and
// binary sizes, plain and stripped, in MB of 10^6 bytes.
func nogormTable(root string) (string, error) {
	tmp, err := os.MkdirTemp("", "docgen")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	const prog = modulePath + "/tools/docgen/objectidonly"
	tools := filepath.Join(root, "tools")
	var b strings.Builder
	fmt.Fprintf(&b, "A program that only prints `types.NewObjectID()` (%s):\n\n", platform())
	fmt.Fprintf(&b, "| build | packages compiled | binary | stripped (`-ldflags=-s -w`) |\n|---|---:|---:|---:|\n")
	for _, tags := range []string{"", "idkit_nogorm"} {
		n, _, err := deps(tools, prog, tags)
		if err != nil {
			return "", err
		}
		var sizes [2]float64
		for i, ldflags := range []string{"", "-s -w"} {
			bin := filepath.Join(tmp, fmt.Sprint("bin", i, tags))
			if _, err := goCmd(tools, "build", "-trimpath", "-buildvcs=false", "-tags", tags, "-ldflags", ldflags, "-o", bin, prog); err != nil {
				return "", err
			}
			fi, err := os.Stat(bin)
			if err != nil {
				return "", err
			}
			sizes[i] = float64(fi.Size()) / 1e6
		}
		name := "default"
		if tags != "" {
			name = "`-tags " + tags + "`"
		}
		fmt.Fprintf(&b, "| %s | %d | %.2f MB | %.2f MB |\n", name, n, sizes[0], sizes[1])
	}
	return b.String(), nil
}

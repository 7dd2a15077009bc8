package importcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/tools/internal/repo"
)

const module = repo.Module

// goList runs go list with args in the root module's directory and returns
// its standard output.
func goList(t *testing.T, args ...string) string {
	t.Helper()
	return goListIn(t, ".", args...)
}

// goListIn is goList in the directory dir of the repository.
func goListIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, append([]string{"list"}, args...)...)
	cmd.Dir = filepath.Join(root, dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return string(out)
}

// drivers are the import-path prefixes of database drivers and clients: a
// package that compiles one of these makes its importers compile it too.
var drivers = []string{
	"github.com/jackc/", "github.com/lib/pq", "github.com/go-sql-driver/",
	"modernc.org/sqlite", "github.com/mattn/go-sqlite3", "github.com/glebarez/",
	"gorm.io/driver/", "go.mongodb.org/", "github.com/redis/",
}

// deps returns, for every package of the module, the packages it compiles
// (go list's Deps: transitive, test files excluded).
func deps(t *testing.T) map[string][]string {
	t.Helper()
	out := goList(t, "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"/...")
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		m[f[0]] = f[1:]
	}
	return m
}

// commands returns the module's main packages, which use the library as a
// user does.
func commands(t *testing.T) map[string]bool {
	t.Helper()
	out := goList(t, "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, module+"/...")
	m := map[string]bool{}
	for _, p := range strings.Fields(out) {
		m[p] = true
	}
	return m
}

func isInternal(pkg string) bool {
	return strings.Contains(pkg+"/", "/internal/")
}

// found returns the deps of pkg that match, failing the test if pkg is not
// in the module.
func found(t *testing.T, all map[string][]string, pkg string, match func(string) bool) []string {
	t.Helper()
	d, ok := all[module+"/"+pkg]
	if !ok {
		t.Fatalf("package %s not found", pkg)
	}
	var bad []string
	for _, p := range d {
		if match(p) {
			bad = append(bad, p)
		}
	}
	return bad
}

func TestImportRules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	all := deps(t)

	// The library's internal packages (internal/... and the generators'
	// generator/internal/...) compile no public idkit package: they serve
	// the public ones, never the other way round. A command under
	// internal/ would be a user of the library, not part of it. The one
	// exception is dialect, a leaf of constants that imports only
	// the standard library (checked below): the internal SQL code speaks the
	// public dialect type.
	mains := commands(t)
	checked := 0
	for pkg, d := range all {
		if mains[pkg] || !isInternal(pkg) || !(strings.HasPrefix(pkg, module+"/internal/") || strings.HasPrefix(pkg, module+"/generator/internal/")) {
			continue
		}
		checked++
		for _, p := range d {
			if strings.HasPrefix(p, module+"/") && !isInternal(p) && p != module+"/dialect" {
				t.Errorf("%s imports the public package %s", pkg, p)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("checked %d internal packages; the listing is broken", checked)
	}

	isNode := func(p string) bool { return p == module+"/generator/node" }
	for _, pkg := range []string{"generator/meteor", "gormplugin"} {
		if bad := found(t, all, pkg, isNode); len(bad) > 0 {
			t.Errorf("%s compiles generator/node (node sources are generator.NodeSource)", pkg)
		}
	}

	isDriver := func(p string) bool {
		for _, d := range drivers {
			if strings.HasPrefix(p, d) {
				return true
			}
		}
		return false
	}
	for _, pkg := range []string{"types", "generator", "generator/node", "generator/segment", "generator/meteor", "sqltypes", "publicid"} {
		if bad := found(t, all, pkg, isDriver); len(bad) > 0 {
			t.Errorf("%s compiles database drivers: %v", pkg, bad)
		}
	}

	// The SQL-backed generators take a dialect.Dialect without compiling
	// sqltypes (package dialect imports only the standard library); segment
	// compiles no GORM.
	for _, pkg := range []string{"generator/node", "generator/segment"} {
		if bad := found(t, all, pkg, func(p string) bool { return p == module+"/sqltypes" }); len(bad) > 0 {
			t.Errorf("%s compiles sqltypes", pkg)
		}
	}
	if bad := found(t, all, "generator/segment", func(p string) bool { return strings.HasPrefix(p, "gorm.io/") }); len(bad) > 0 {
		t.Errorf("generator/segment compiles GORM: %v", bad)
	}
	// Standard-library paths have no dot in their first element.
	notStd := func(p string) bool { return strings.Contains(strings.SplitN(p, "/", 2)[0], ".") }
	if bad := found(t, all, "dialect", notStd); len(bad) > 0 {
		t.Errorf("dialect imports more than the standard library: %v", bad)
	}
}

// TestNestedModulesImportNoRootInternal: the packages of a published module
// other than the root (etcdlease, kubelease) import no internal package of
// the root module, whose next release may change it; they reach the root
// only through its public API (and compile its internal packages only
// through that). etcdlease's test files may use the root's test helpers;
// kubelease's may not.
func TestNestedModulesImportNoRootInternal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for dir, format := range map[string]string{
		"generator/node/etcdlease": `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`,
		"generator/node/kubelease": `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}`,
	} {
		out := goListIn(t, dir, "-f", format, "./...")
		n := 0
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Fields(line)
			n++
			for _, p := range f[1:] {
				if strings.HasPrefix(p, module+"/") && isInternal(p) {
					t.Errorf("%s imports %s, an internal package of the root module", f[0], p)
				}
			}
		}
		if n == 0 {
			t.Fatalf("%s: no package listed", dir)
		}
	}
}

// stores are the lease stores of the repository, by directory: each
// stands beside the others on package node's public contract (node.Store).
var stores = []string{
	"generator/node/sqllease",
	"generator/node/redislease",
	"generator/node/etcdlease",
	"generator/node/kubelease",
}

// storeInternals are the internal packages a store may import: SQL
// helpers shared with the segment allocator, and the stores' test switch
// and once-only warning. Neither imports package node (internal packages
// import no public package but dialect: TestImportRules).
var storeInternals = map[string]bool{
	module + "/generator/internal/sqldialect":    true,
	module + "/generator/node/internal/failover": true,
}

// TestStoresOnPublicContract: no store reaches package node's private
// names. A store imports, of the root module, only public packages and the
// internal packages storeInternals lists (not generator/internal/wiring,
// through which package node reaches the generator's), and carries no
// linkname directive; package node imports no store, so that a claim walks
// one way.
func TestStoresOnPublicContract(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for _, dir := range stores {
		// Each store is listed from its own directory, as etcdlease and
		// kubelease are modules of their own.
		out := goListIn(t, dir, "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, ".")
		f := strings.Fields(out)
		if len(f) == 0 {
			t.Fatalf("%s: no package listed", dir)
		}
		for _, p := range f[1:] {
			if strings.HasPrefix(p, module+"/") && isInternal(p) && !storeInternals[p] {
				t.Errorf("%s imports %s: a store stands on package node's public API only", dir, p)
			}
		}
		files := goListIn(t, dir, "-f", `{{.Dir}}{{range .GoFiles}} {{.}}{{end}}`, ".")
		ff := strings.Fields(files)
		for _, name := range ff[1:] {
			b, err := os.ReadFile(filepath.Join(ff[0], name))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), "go:linkname") {
				t.Errorf("%s/%s uses go:linkname", dir, name)
			}
		}
	}
	out := goList(t, "-f", `{{range .Imports}}{{.}} {{end}}`, module+"/generator/node")
	for _, p := range strings.Fields(out) {
		for _, s := range stores {
			if p == module+"/"+s {
				t.Errorf("generator/node imports the store %s", s)
			}
		}
	}
}

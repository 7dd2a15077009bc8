package readmecheck_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/tools/internal/repo"
)

// root is the repository root.
var root = func() string {
	r, err := repo.Root()
	if err != nil {
		panic(err)
	}
	return r
}()

// docFiles returns README.md and every Markdown file under docs/, but
// docs/generated (which the docs include).
func docFiles(t *testing.T) map[string]string {
	t.Helper()
	docs := map[string]string{}
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(names, filepath.Join(root, "README.md")) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, name)
		docs[filepath.ToSlash(rel)] = string(b)
	}
	return docs
}

// goLines returns the normalized lines of every Go file in the repository.
func goLines(t *testing.T) map[string]bool {
	t.Helper()
	have := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, l := range normalizeLines(string(b)) {
			have[l] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return have
}

var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// TestSnippetsCompile checks that every code line of the Go blocks in
// README.md and docs/*.md is a line of a Go file of the repository: the
// examples and tests that hold them compile (CI builds and vets every
// module), so the docs show only code that compiles against the current
// API. Most lines are in the examples and tests of their package, which
// run; snippets_test.go holds the others.
func TestSnippetsCompile(t *testing.T) {
	have := goLines(t)
	docs := docFiles(t)
	if n := len(goBlock.FindAllString(docs["README.md"], -1)); n < 5 {
		t.Fatalf("README.md has only %d Go blocks", n)
	}
	for name, text := range docs {
		for _, b := range goBlock.FindAllStringSubmatch(text, -1) {
			for _, l := range normalizeLines(b[1]) {
				if !have[l] {
					t.Errorf("%s: line in no Go file of the repository: %s", name, l)
				}
			}
		}
	}
}

// TestREADMEShape checks the README's length and that its first screen
// shows the two commands and the GORM path.
func TestREADMEShape(t *testing.T) {
	readme := docFiles(t)["README.md"]
	if n := strings.Count(readme, "\n"); n > 350 {
		t.Errorf("README.md has %d lines; at most 350", n)
	}
	first := strings.Join(strings.SplitN(readme, "\n", 60)[:59], "\n")
	for _, want := range []string{"go run ./examples/quickstart", "go test -timeout 30m ./...", "db.Use(gormplugin.New(", "db.Create(", "db.First("} {
		if !strings.Contains(first, want) {
			t.Errorf("README.md's first 60 lines lack %q", want)
		}
	}
}

// normalizeLines returns the non-blank lines of src that are not only a
// comment, without a trailing comment, with runs of blanks made one space.
func normalizeLines(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if i := strings.Index(l, " // "); i >= 0 {
			l = l[:i]
		} else if strings.HasSuffix(strings.TrimSpace(l), " //") {
			l = strings.TrimSuffix(strings.TrimSpace(l), "//")
		}
		l = strings.Join(strings.Fields(l), " ")
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		out = append(out, l)
	}
	return out
}

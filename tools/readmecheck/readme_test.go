package readmecheck_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// goFile is one Go file of the repository as normalized lines (see
// normalizeLines), with whether each line starts at the file's top level
// (column 0).
type goFile struct {
	path  string
	lines []string
	top   []bool
}

// goFiles returns every Go file of the repository but those under
// testdata.
func goFiles(t *testing.T) []goFile {
	t.Helper()
	var files []goFile
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
		f := goFile{path: path}
		for _, raw := range strings.Split(string(b), "\n") {
			if l, ok := normalizeLine(raw); ok {
				f.lines = append(f.lines, l)
				f.top = append(f.top, raw != "" && raw[0] != ' ' && raw[0] != '\t')
			}
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// fragmentMarker, on the line before a Go block's fence, marks a block
// meant as a fragment (see the package documentation).
const fragmentMarker = "<!-- readmecheck:fragment -->"

var goBlock = regexp.MustCompile("(?s)(?:(" + regexp.QuoteMeta(fragmentMarker) + ")\n)?```go\n(.*?)```")

// TestSnippetsCompile checks that every Go block in README.md and
// docs/*.md compiles as it stands: its code lines are, in order and with
// nothing between them, lines of one Go file of the repository, either at
// the file's top level, or as the last lines of a function when the block
// declares a variable (nothing after it can then use a variable the block
// leaves unused). CI builds and vets every
// module, so the block compiles with what that file gives it (the variables
// a function takes, the imports). Most blocks are in the examples and tests
// of their package, which run; snippets_test.go holds the others. A block
// marked as a fragment needs only each code line in some Go file.
func TestSnippetsCompile(t *testing.T) {
	files := goFiles(t)
	have := map[string]bool{}
	for _, f := range files {
		for _, l := range f.lines {
			have[l] = true
		}
	}
	docs := docFiles(t)
	if n := len(goBlock.FindAllString(docs["README.md"], -1)); n < 5 {
		t.Fatalf("README.md has only %d Go blocks", n)
	}
	seen := map[string]bool{}
	defer func() {
		for key := range pending {
			if !seen[key] {
				t.Errorf("pending names no Go block of the docs: remove %q", key)
			}
		}
	}()
	for name, text := range docs {
		for _, b := range goBlock.FindAllStringSubmatchIndex(text, -1) {
			line := 1 + strings.Count(text[:b[0]], "\n")
			code := normalizeLines(text[b[4]:b[5]])
			if b[2] >= 0 {
				for _, l := range code {
					if !have[l] {
						t.Errorf("%s:%d: fragment line in no Go file of the repository: %s", name, line, l)
					}
				}
				continue
			}
			key := name + ": " + firstLine(code)
			seen[key] = true
			if pending[key] {
				if compiledWhole(files, code) {
					t.Errorf("%s:%d: Go block compiles whole now: remove %q from pending", name, line, key)
				} else {
					t.Logf("%s:%d: pending Go block, not yet compiled whole: %s", name, line, key)
				}
				continue
			}
			if !compiledWhole(files, code) {
				t.Errorf("%s:%d: Go block is not, whole, the top-level code or the end of a function of a Go file of the repository (mark a fragment %s):\n%s",
					name, line, fragmentMarker, strings.Join(code, "\n"))
			}
		}
	}
}

// pending lists the Go blocks, by file and first code line, that do not
// compile whole yet because the API they show is being changed with them:
// TestSnippetsCompile logs them instead of failing, and fails once one
// compiles whole or names no block, so that its entry is removed.
var pending = map[string]bool{}

func firstLine(code []string) string {
	if len(code) == 0 {
		return ""
	}
	return code[0]
}

// compiledWhole reports whether code is, line for line, a run of lines of
// one of files at its top level, or a run that ends a function (the line
// after it is the closing brace of a top-level declaration), or any run
// when code declares no variable (nothing in it can be left unused).
func compiledWhole(files []goFile, code []string) bool {
	if len(code) == 0 {
		return true
	}
	for _, f := range files {
		for i := 0; i+len(code) <= len(f.lines); i++ {
			if !slices.Equal(f.lines[i:i+len(code)], code) {
				continue
			}
			if f.top[i] || !declaresVars(code) {
				return true
			}
			if j := i + len(code); j < len(f.lines) && f.top[j] && f.lines[j] == "}" {
				return true
			}
		}
	}
	return false
}

// TestREADMEShape checks the README's length (the lines a reader sees) and that its first screen
// shows the two commands and the GORM path.
func TestREADMEShape(t *testing.T) {
	readme := docFiles(t)["README.md"]
	// The fragment markers are HTML comments, which no reader sees.
	if n := strings.Count(readme, "\n") - strings.Count(readme, fragmentMarker); n > 350 {
		t.Errorf("README.md has %d lines (fragment markers not counted); at most 350", n)
	}
	first := strings.Join(strings.SplitN(readme, "\n", 60)[:59], "\n")
	for _, want := range []string{"go run ./examples/quickstart", "go test -timeout 30m ./...", "db.Use(gormplugin.New(", "db.Create(", "db.First("} {
		if !strings.Contains(first, want) {
			t.Errorf("README.md's first 60 lines lack %q", want)
		}
	}
}

// declaresVars reports whether code declares a variable: a line with :=
// or one that starts with "var ".
func declaresVars(code []string) bool {
	for _, l := range code {
		if strings.Contains(l, ":=") || strings.HasPrefix(l, "var ") {
			return true
		}
	}
	return false
}

// normalizeLines returns the non-blank lines of src that are not only a
// comment, each normalized by normalizeLine.
func normalizeLines(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if l, ok := normalizeLine(l); ok {
			out = append(out, l)
		}
	}
	return out
}

// normalizeLine returns l without a trailing comment, with runs of blanks
// made one space, and false when nothing but a comment or blanks is left.
func normalizeLine(l string) (string, bool) {
	if i := strings.Index(l, " // "); i >= 0 {
		l = l[:i]
	} else if strings.HasSuffix(strings.TrimSpace(l), " //") {
		l = strings.TrimSuffix(strings.TrimSpace(l), "//")
	}
	l = strings.Join(strings.Fields(l), " ")
	return l, l != "" && !strings.HasPrefix(l, "//")
}

package readmecheck_test

import (
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/tools/internal/repo"
)

// The Go doc comments of the public packages state contracts. Two things
// do not belong in them: measured figures (timings, allocation counts,
// ratios, percentiles), which change with the code and the machine and
// belong in docs/*.md beside the generated tables; and links to repository
// paths such as docs/mongodb.md, which pkg.go.dev cannot follow (a link is
// a full https URL or a Go doc link such as [types.ObjectID]). Constants
// and limits stay: "Default 5 s", "at least 100 ms", "10 ms units",
// "2^24 IDs per second".

// docLine is one line of a doc comment: its text without the comment
// marker and the line of the file it is on.
type docLine struct {
	line int
	text string
}

// docFinding is a phrase of a doc comment that breaks a rule.
type docFinding struct {
	line   int
	phrase string
	why    string
	off    int // offset in the comment's text, for the order of findings
}

func (f docFinding) String() string { return fmt.Sprintf("%d: %s: %q", f.line, f.why, f.phrase) }

const (
	whyMeasured = "measured figure"
	whyRepoLink = "repository path (use a full https URL or a Go doc link)"
)

var (
	timeUnit = `(?:ns|µs|μs|us|ms|s|sec|seconds?|milliseconds?|microseconds?|nanoseconds?)`

	// Phrases that are measurements wherever they appear.
	alwaysMeasured = []*regexp.Regexp{
		// benchmark output: 45 ns/op, 0 B/op, 2 allocs/op
		regexp.MustCompile(`\b\d[\d,.]*\s?(?:ns|µs|μs|us|ms|B|allocs?)/op\b`),
		// a time with a fraction: 0.94 s, 1.2 µs (constants are whole)
		regexp.MustCompile(`\b\d+\.\d+\s?` + timeUnit + `\b`),
		// an allocation count: 1,005 allocations, 0 allocs
		regexp.MustCompile(`\b\d[\d,]*\s+(?:heap\s+)?(?:allocations?|allocs)\b`),
		// a speed ratio: 0.7 times as long, 3x faster, twice as fast
		regexp.MustCompile(`(?i)\b\d+(?:\.\d+)?\s?(?:x|×|times)\s+(?:as\s+(?:long|fast|slow|much time)|faster|slower|quicker|cheaper|costlier)\b`),
		regexp.MustCompile(`(?i)\b(?:twice|half|three times)\s+as\s+(?:fast|slow|long)\b`),
		// a percentile: p50, p99, p99.9
		regexp.MustCompile(`\bp(?:50|90|95|99|99\.9|999)\b`),
		// a throughput figure: 12 M ops/s
		regexp.MustCompile(`\b\d[\d,.]*\s?(?:[kKM]|million|thousand)?\s?(?:ops|operations|calls|queries|requests|writes|reads)/s\b`),
	}

	// A figure with a unit, which is a measurement when its sentence also
	// says it was measured (measureWord).
	unitFigure  = regexp.MustCompile(`\b\d[\d,.]*\s?(?:` + timeUnit + `|%|x|×|times|allocations?|allocs|writes|reads|calls|queries|ops|B|KB|MB|GB|kB)(?:\b|\s|$)|\b\d[\d,.]*\s?%`)
	measureWord = regexp.MustCompile(`(?i)\b(?:measured|measuring|measurements?|benchmark(?:s|ed)?|took|faster|slower|median|percentile|on (?:a|this|my|our) (?:machine|laptop|CPU))\b`)
	// A percentage is a measurement beside these words too.
	percentFigure = regexp.MustCompile(`\b\d+(?:\.\d+)?\s?%`)
	percentWord   = regexp.MustCompile(`(?i)\b(?:CPU|core|overhead|fewer|less|more)\b`)

	// Sentence ends: a full stop, question or exclamation mark before a
	// blank, or a blank line.
	sentenceEnd = regexp.MustCompile(`[.!?](?:\s|$)|\n\s*\n`)

	url = regexp.MustCompile(`(?i)\bhttps?://\S+`)

	repoLinks = []*regexp.Regexp{
		// a Markdown file: docs/mongodb.md, README.md, ../docs/x.md#anchor
		regexp.MustCompile(`[\w./-]*\w\.md\b(?:#[\w-]+)?`),
		// a path below a directory of the repository that holds no package
		regexp.MustCompile(`(?:^|[^\w/.-])((?:\.{1,2}/)?(?:docs|examples|bench|tools|testdata)/[\w./-]*\w)`),
		// a Markdown inline link to something other than a URL
		regexp.MustCompile(`\]\((?:[^)h]|h[^t]|ht[^t]|htt[^p])[^)]*\)`),
	}
	// A doc link definition, "[Text]: target", whose target is not a URL.
	linkDef = regexp.MustCompile(`^\s*\[[^\]]+\]:\s*(\S+)\s*$`)
)

// checkDoc returns the phrases of a doc comment, given as its lines, that
// quote a measured figure or link a repository path.
func checkDoc(lines []docLine) []docFinding {
	var text strings.Builder
	starts := make([]int, len(lines)) // offset of each line in text
	for i, l := range lines {
		starts[i] = text.Len()
		text.WriteString(l.text)
		text.WriteByte('\n')
	}
	s := text.String()
	lineAt := func(off int) int {
		i := sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
		return lines[i].line
	}
	var out []docFinding
	var spans [][2]int // the offsets reported; a phrase overlapping one is not reported again
	add := func(from, to int, why string) {
		for _, sp := range spans {
			if from < sp[1] && sp[0] < to {
				return
			}
		}
		spans = append(spans, [2]int{from, to})
		out = append(out, docFinding{lineAt(from), strings.Join(strings.Fields(s[from:to]), " "), why, from})
	}

	// Measured figures: everywhere, code blocks included (benchmark
	// output is a measurement too).
	for _, re := range alwaysMeasured {
		for _, m := range re.FindAllStringIndex(s, -1) {
			add(m[0], m[1], whyMeasured)
		}
	}
	from := 0
	for _, end := range append(sentenceEnd.FindAllStringIndex(s, -1), []int{len(s), len(s)}) {
		sentence := s[from:end[0]]
		if measureWord.MatchString(sentence) {
			for _, m := range unitFigure.FindAllStringIndex(sentence, -1) {
				add(from+m[0], from+m[1], whyMeasured)
			}
		}
		if percentWord.MatchString(sentence) {
			for _, m := range percentFigure.FindAllStringIndex(sentence, -1) {
				add(from+m[0], from+m[1], whyMeasured)
			}
		}
		from = end[1]
	}

	// Repository links: outside code blocks, URLs blanked out.
	code := codeLines(lines)
	for i, l := range lines {
		if code[strings.TrimSpace(l.text)] {
			continue
		}
		if m := linkDef.FindStringSubmatch(l.text); m != nil && !url.MatchString(m[1]) {
			add(starts[i], starts[i]+len(l.text), whyRepoLink)
			continue
		}
		t := url.ReplaceAllStringFunc(l.text, func(u string) string { return strings.Repeat(" ", len(u)) })
		for _, re := range repoLinks {
			for _, m := range re.FindAllStringSubmatchIndex(t, -1) {
				a, b := m[0], m[1]
				if len(m) > 2 && m[2] >= 0 {
					a, b = m[2], m[3]
				}
				add(starts[i]+a, starts[i]+b, whyRepoLink)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].off < out[j].off })
	return out
}

// codeLines returns the trimmed lines of the code blocks of a doc comment,
// as go/doc/comment parses it.
func codeLines(lines []docLine) map[string]bool {
	var text strings.Builder
	for _, l := range lines {
		text.WriteString(l.text)
		text.WriteByte('\n')
	}
	var p comment.Parser
	code := map[string]bool{}
	var walk func([]comment.Block)
	walk = func(bs []comment.Block) {
		for _, b := range bs {
			switch b := b.(type) {
			case *comment.Code:
				for _, l := range strings.Split(b.Text, "\n") {
					if l = strings.TrimSpace(l); l != "" {
						code[l] = true
					}
				}
			case *comment.List:
				for _, it := range b.Items {
					walk(it.Content)
				}
			}
		}
	}
	walk(p.Parse(text.String()).Content)
	return code
}

// commentLines returns the lines of a comment group without the comment
// markers, each with its line in the file.
func commentLines(fset *token.FileSet, g *ast.CommentGroup) []docLine {
	if g == nil {
		return nil
	}
	var out []docLine
	for _, c := range g.List {
		line := fset.Position(c.Pos()).Line
		if t, ok := strings.CutPrefix(c.Text, "//"); ok {
			out = append(out, docLine{line, strings.TrimPrefix(t, " ")})
			continue
		}
		t := strings.TrimSuffix(strings.TrimPrefix(c.Text, "/*"), "*/")
		for i, l := range strings.Split(t, "\n") {
			out = append(out, docLine{line + i, l})
		}
	}
	return out
}

// docComments returns the comment groups go doc shows for a file: the
// package comment and those of exported declarations, of the exported
// fields of exported structs and of the methods of exported interfaces.
func docComments(f *ast.File) []*ast.CommentGroup {
	gs := []*ast.CommentGroup{f.Doc}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv != nil && len(d.Recv.List) > 0 && !exportedRecv(d.Recv.List[0].Type) {
				continue
			}
			gs = append(gs, d.Doc)
		case *ast.GenDecl:
			exported := false
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					exported = true
					gs = append(gs, s.Doc, s.Comment)
					switch t := s.Type.(type) {
					case *ast.StructType:
						gs = append(gs, fieldComments(t.Fields)...)
					case *ast.InterfaceType:
						gs = append(gs, fieldComments(t.Methods)...)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							exported = true
							gs = append(gs, s.Doc, s.Comment)
							break
						}
					}
				}
			}
			if exported {
				gs = append(gs, d.Doc)
			}
		}
	}
	return gs
}

func exportedRecv(e ast.Expr) bool {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.IsExported()
		default:
			return false
		}
	}
}

func fieldComments(fl *ast.FieldList) []*ast.CommentGroup {
	var gs []*ast.CommentGroup
	for _, f := range fl.List {
		exported := len(f.Names) == 0 // embedded
		for _, n := range f.Names {
			exported = exported || n.IsExported()
		}
		if exported {
			gs = append(gs, f.Doc, f.Comment)
		}
	}
	return gs
}

// TestGoDocComments checks the doc comments of every public package for
// measured figures and repository paths (see checkDoc).
func TestGoDocComments(t *testing.T) {
	dirs, err := repo.PublicPackages(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("only %d public packages found: %v", len(dirs), dirs)
	}
	for _, dir := range dirs {
		names, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(root, name)
			for _, g := range docComments(f) {
				for _, fd := range checkDoc(commentLines(fset, g)) {
					t.Errorf("%s:%d: %s: %q", filepath.ToSlash(rel), fd.line, fd.why, fd.phrase)
				}
			}
		}
	}
}

// TestCheckDoc checks the rules on comments that break them and on
// comments that state contracts with figures.
func TestCheckDoc(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want []string // the phrases found, in order
	}{
		// Contracts: constants, limits, layouts, units.
		{"DefaultTTL is 10 s.", nil},
		{"Timeout bounds one fetch statement. Default 5 s.", nil},
		{"TTL is the lease's lifetime; at least 100 ms.", nil},
		{"Sonyflake returns sony/sonyflake's layout: 39 bits of 10 ms units\nin the order time | sequence | machine: 256 IDs per 10 ms per machine.", nil},
		{"A node issues at most 2^24 IDs per second.", nil},
		{"The sequence holds 4,096 IDs per millisecond.", nil},
		{"Next returns a new ID. It is safe for concurrent use and does not allocate.", nil},
		{"The IDs are decoded without the allocations of the Value/Scan path.", nil},
		{"Encoding them is slower than its own ObjectID; MapObjectIDs avoids that.", nil},
		{"Registering twice is harmless.", nil},
		{"It sleeps in time.Sleep while more than 2 ms remain, then spins.", nil},
		{"Close returns within max(RenewEvery, 1 s).", nil},
		{"See https://github.com/idkit-go/idkit/blob/main/docs/mongodb.md for the figures.", nil},
		{"See [types.ObjectID] and [Layout.Decompose].", nil},
		{"See the [MongoDB guide].\n\n[MongoDB guide]: https://github.com/idkit-go/idkit/blob/main/docs/mongodb.md", nil},
		{"Import github.com/idkit-go/idkit/examples/quickstart to see it.", nil},
		{"For example:\n\n\tgo run ./examples/quickstart\n\nprints an ID.", nil},
		{"Up to 50% of the sequence may be reserved for bursts.", nil},

		// Measurements.
		{"With RenewEvery 150 ms against local servers the tests measured 3 to 80 ms,\nand 0.94 s once on an oversubscribed CPU.", []string{"150 ms", "80 ms", "0.94 s"}},
		{"Reading 1,000 columns took about 0.7 times as long and 1,005 instead of 6,009 allocations.", []string{"0.7 times as long", "6,009 allocations"}},
		{"Next takes 12 ns.\n\n\tBenchmarkNext-2  100000000  11.9 ns/op  0 B/op  0 allocs/op", []string{"11.9 ns/op", "0 B/op", "0 allocs/op"}},
		{"It is 3x faster than rs/xid.", []string{"3x faster"}},
		{"It is twice as fast as a mutex.", []string{"twice as fast"}},
		{"Claims take 40 ms at p99.", []string{"p99"}},
		{"Its CPU use is 12% of a core.", []string{"12%"}},
		{"On this machine a claim takes 3 ms.", []string{"3 ms"}},
		{"A generator makes 25 M ops/s.", []string{"25 M ops/s"}},

		// Repository paths.
		{"docs/gorm-errors.md describes each error.", []string{"docs/gorm-errors.md"}},
		{"ObjectID (see docs/mongodb.md for the measured cost).", []string{"docs/mongodb.md"}},
		{"See README.md.", []string{"README.md"}},
		{"See [the guide](docs/mongodb.md).", []string{"docs/mongodb.md"}},
		{"See [the guide].\n\n[the guide]: ../docs/mongodb.md#bench", []string{"[the guide]: ../docs/mongodb.md#bench"}},
		{"The results are in docs/fleet/results.", []string{"docs/fleet/results"}},
		{"Run the program in examples/quickstart.", []string{"examples/quickstart"}},
	} {
		var lines []docLine
		for i, l := range strings.Split(tc.doc, "\n") {
			lines = append(lines, docLine{i + 1, l})
		}
		var got []string
		for _, f := range checkDoc(lines) {
			got = append(got, f.phrase)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("checkDoc(%q) found %q; want %q", tc.doc, got, tc.want)
		}
	}
}

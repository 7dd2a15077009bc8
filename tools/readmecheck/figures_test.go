package readmecheck_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A generated block: the docs include a generated file verbatim between
// these two comments.
var generated = regexp.MustCompile(`(?s)<!-- generated from ([^ ]+) -->\n(.*?)<!-- end generated -->`)

// fleetTable is docs/fleet.md's table, which fleetsim -table generates and
// fleetsim's TestDocsTable checks against the reports.
var fleetTable = regexp.MustCompile(`(?s)<!-- fleetsim -table [^ ]+ -->\n.*?<!-- end of table -->`)

// TestGeneratedBlocks checks that every generated block of README.md and
// docs/*.md holds its file exactly (docs/generated is written by
// tools/docgen, bench/results/summary.md by bench/cmd/benchreport,
// bench/results/insert.md by bench/cmd/insertbench).
func TestGeneratedBlocks(t *testing.T) {
	for name, text := range docFiles(t) {
		for _, m := range generated.FindAllStringSubmatch(text, -1) {
			want, err := os.ReadFile(filepath.Join(root, m[1]))
			if err != nil {
				t.Errorf("%s includes %s: %v", name, m[1], err)
				continue
			}
			if strings.TrimSpace(m[2]) != strings.TrimSpace(string(want)) {
				t.Errorf("%s: the block generated from %s differs from that file; copy it again", name, m[1])
			}
		}
	}
}

// Measured figures: a decimal with a unit of size or time, a ratio, a
// package count. The docs quote them only inside generated blocks.
var measured = regexp.MustCompile(`\b\d+\.\d+ ?(MB|KB|GB|ns|µs|us|ms)\b|\b\d+\.\d\d times\b|\babout (twice|half)\b|\b\d+ packages\b`)

// TestNoHandCopiedFigures checks that the prose and tables of README.md and
// docs/*.md quote no measured figure outside generated blocks (code blocks,
// which show commands and sample output, are not prose).
func TestNoHandCopiedFigures(t *testing.T) {
	code := regexp.MustCompile("(?s)```.*?```")
	for name, text := range docFiles(t) {
		text = generated.ReplaceAllString(text, "")
		text = fleetTable.ReplaceAllString(text, "")
		text = code.ReplaceAllString(text, "")
		for _, line := range strings.Split(text, "\n") {
			if m := measured.FindString(line); m != "" {
				t.Errorf("%s quotes %q by hand; include a generated file instead: %s", name, m, line)
			}
		}
	}
}

// Stale claims that were once made and found false; none may return, in
// the docs (outside generated blocks) or in a Go file's comments.
var stale = []*regexp.Regexp{
	regexp.MustCompile(`counter never wraps within a second`),
	regexp.MustCompile(`peers never enter`),
	regexp.MustCompile(`GraphQL\s+(//\s+)?null or ""\) gives the zero ID`),
	regexp.MustCompile(`\b2\.70 MB\b`),
	regexp.MustCompile(`\b1\.95 times\b`),
}

// TestNoStaleClaims checks the docs and Go comments for claims found false.
func TestNoStaleClaims(t *testing.T) {
	files := docFiles(t)
	for name, text := range files {
		files[name] = generated.ReplaceAllString(text, "")
	}
	for _, dir := range []string{"types", "generator", "mongocompat", "gormplugin"} {
		names, _ := filepath.Glob(filepath.Join(root, dir, "*.go"))
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			files[n] = string(b)
		}
	}
	for name, text := range files {
		for _, re := range stale {
			if loc := re.FindString(text); loc != "" {
				t.Errorf("%s: stale claim %q", name, loc)
			}
		}
	}
}

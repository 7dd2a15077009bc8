package readmecheck_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMESnippets checks that every code line of the README's Go blocks,
// but for the GORM section's (see gormplugin's TestREADMESnippets), is a
// line of snippets_test.go: the README shows only code that compiles
// against the current API.
func TestREADMESnippets(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	if start := strings.Index(text, "\n## GORM\n"); start >= 0 {
		end := strings.Index(text[start+1:], "\n## ")
		if end < 0 {
			t.Fatal("the GORM section is the README's last")
		}
		text = text[:start] + text[start+1+end:]
	}
	src, err := os.ReadFile("snippets_test.go")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, l := range normalizeLines(string(src)) {
		have[l] = true
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(text, -1)
	if len(blocks) < 5 {
		t.Fatalf("only %d go blocks outside the GORM section", len(blocks))
	}
	for _, b := range blocks {
		for _, l := range normalizeLines(b[1]) {
			if !have[l] {
				t.Errorf("README line not in snippets_test.go: %s", l)
			}
		}
	}
}

// normalizeLines returns the non-blank lines of src that are not only a
// comment, with runs of blanks made one space.
func normalizeLines(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		l = strings.Join(strings.Fields(l), " ")
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		out = append(out, l)
	}
	return out
}

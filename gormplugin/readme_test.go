package gormplugin_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMESnippets checks that every code line of the README's GORM
// section is a line of this package's examples, which compile and run with
// their output checked: the README shows only code that works.
func TestREADMESnippets(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	start := strings.Index(section, "\n## GORM\n")
	if start < 0 {
		t.Fatal("README has no GORM section")
	}
	section = section[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var examples []string
	for _, name := range []string{"example_test.go", "example_keys_test.go"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		examples = append(examples, normalizeLines(string(b))...)
	}
	have := map[string]bool{}
	for _, l := range examples {
		have[l] = true
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(section, -1)
	if len(blocks) == 0 {
		t.Fatal("no go blocks in the GORM section")
	}
	for _, b := range blocks {
		for _, l := range normalizeLines(b[1]) {
			if !have[l] {
				t.Errorf("README line not in an example: %s", l)
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

// TestOtherKeysDoc checks that every code line of docs/gorm-other-keys.md
// is a line of example_otherkeys_test.go, which compiles and runs.
func TestOtherKeysDoc(t *testing.T) {
	doc, err := os.ReadFile("../docs/gorm-other-keys.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_otherkeys_test.go")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, l := range normalizeLines(string(src)) {
		have[l] = true
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) < 3 {
		t.Fatalf("only %d go blocks", len(blocks))
	}
	for _, b := range blocks {
		for _, l := range normalizeLines(b[1]) {
			if !have[l] {
				t.Errorf("doc line not in the example: %s", l)
			}
		}
	}
}

package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// shape replaces the values that change from run to run (ObjectIDs, times,
// numbers) with placeholders, keeping the words and the layout.
func shape(s string) string {
	for _, r := range []struct{ re, with string }{
		{`\b[0-9a-f]{24}\b`, "<oid>"},
		{`process=[0-9a-f]{10}`, "process=<hex>"},
		{`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z`, "<time>"},
		{`\d+`, "<n>"},
	} {
		s = regexp.MustCompile(r.re).ReplaceAllString(s, r.with)
	}
	return s
}

// The README's first command runs this example: it must run, and the
// README's console block must have the shape of its real output.
func TestQuickstart(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	want := `order <n> book  Snowflake: time=<time> node=<n> sequence=<n>
  event <oid> ordered  ObjectID: time=<time> process=<hex> counter=<n> order=<n>
  event <oid> paid     ObjectID: time=<time> process=<hex> counter=<n> order=<n>
order <n> pen   Snowflake: time=<time> node=<n> sequence=<n>
  event <oid> ordered  ObjectID: time=<time> process=<hex> counter=<n> order=<n>
`
	if shape(got) != want {
		t.Errorf("output:\n%s\nhas shape:\n%s\nwant:\n%s", got, shape(got), want)
	}
	// Both events of the first order point at it, and the keys were made in order.
	lines := strings.Split(strings.TrimSpace(got), "\n")
	first := strings.Fields(lines[0])[1]
	for _, l := range lines[1:3] {
		if !strings.HasSuffix(l, "order="+first) {
			t.Errorf("event line %q does not point at order %s", l, first)
		}
	}

	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const intro = "`go run ./examples/quickstart` prints:\n\n```\n"
	_, block, ok := strings.Cut(string(readme), intro)
	if !ok {
		t.Fatalf("README.md has no %q block", intro)
	}
	block, _, _ = strings.Cut(block, "```")
	if shape(block) != want {
		t.Errorf("README.md's quickstart output has shape:\n%s\nwant:\n%s", shape(block), want)
	}
}

package main

import "testing"

// The README's first command runs this example; keep it working.
func TestQuickstartRuns(t *testing.T) {
	if err := run(); err != nil {
		t.Fatal(err)
	}
}

package main

import (
	"testing"
)

// TestRun runs the demo on SQLite: the lease is lost, heals, and the same
// generator issues again (run fails otherwise).
func TestRun(t *testing.T) {
	if err := run("sqlite", "", "leasemetrics_leases", ""); err != nil {
		t.Fatal(err)
	}
}

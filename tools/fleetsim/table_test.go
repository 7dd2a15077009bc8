package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailoverTable: a -failover report is a row of the runs' table and of
// a second table of its own; without one, the second table is not printed.
func TestFailoverTable(t *testing.T) {
	dir := t.TempDir()
	plain := "store: redis\nholders: 200\nduplicates: 0\n"
	if err := os.WriteFile(filepath.Join(dir, "redis-200h-30s-2026-11-27T1000.txt"), []byte(plain), 0o644); err != nil {
		t.Fatal(err)
	}
	var before strings.Builder
	if err := printTable(&before, dir); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(before.String(), "\n"); n != 3 {
		t.Errorf("one plain run: %d lines, want 3 (no failover table):\n%s", n, before.String())
	}
	r := &report{}
	for _, kv := range [][2]string{
		{"store", "postgres"}, {"holders", "200"}, {"duration", "30s"}, {"date", "2026-11-27T10:36:36Z"},
		{"duplicates", "0"}, {"failover", "primary killed"}, {"failover_at", "15s"},
		{"failover_replication_cut_before", "1s"}, {"failover_holders_issuing_after", "200 / 200"},
		{"failover_first_id_p50", "402ms"}, {"failover_first_id_p99", "5.407s"},
	} {
		r.add(kv[0], kv[1])
	}
	if got, want := r.fileName(), "postgres-failover-200h-30s-2026-11-27T1036.txt"; got != want {
		t.Errorf("file name %q, want %q", got, want)
	}
	f, err := os.Create(filepath.Join(dir, r.fileName()))
	if err != nil {
		t.Fatal(err)
	}
	r.write(f)
	f.Close()
	var after strings.Builder
	if err := printTable(&after, dir); err != nil {
		t.Fatal(err)
	}
	runs, failovers, ok := strings.Cut(after.String(), "\n\n")
	if !ok {
		t.Fatalf("no failover table:\n%s", after.String())
	}
	if !strings.Contains(runs, "| postgres-failover-200h-30s-2026-11-27T1036 |") || !strings.Contains(runs, "| redis-200h-30s-2026-11-27T1000 |") {
		t.Errorf("the runs' table lacks a run:\n%s", runs)
	}
	if !strings.Contains(failovers, "| postgres-failover-200h-30s-2026-11-27T1036 | postgres | 15s (1s) |") ||
		!strings.Contains(failovers, "| 200 / 200 | 402ms / 5.407s /") || strings.Contains(failovers, "redis-200h") {
		t.Errorf("failover table:\n%s", failovers)
	}
}

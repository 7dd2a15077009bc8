package testdb

import (
	"errors"
	"strings"
	"testing"
)

func TestSkipSummary(t *testing.T) {
	if InCI() {
		t.Setenv("CI", "")
	}
	refused := errors.New("connection refused")
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) { Unavailable(t, "PostgreSQL", refused) })
	}
	t.Run("redis", func(t *testing.T) { Unavailable(t, "Redis", errors.New("no route")) })
	got := SkipSummary()
	want := "testdb: 3 tests skipped: PostgreSQL unavailable, 2 skipped (connection refused); Redis unavailable, 1 skipped (no route)"
	if got != want {
		t.Errorf("SkipSummary() = %q, want %q", got, want)
	}
	if err := down("PostgreSQL"); err != refused {
		t.Errorf("down(PostgreSQL) = %v, want the recorded error", err)
	}
	t.Run("no second dial", func(t *testing.T) {
		t.Setenv("IDKIT_POSTGRES_DSN", "host=192.0.2.1 connect_timeout=30") // would hang
		Postgres(t)
		t.Error("not skipped")
	})
	if !strings.Contains(SkipSummary(), "PostgreSQL unavailable, 3 skipped") {
		t.Errorf("summary %q: the fast skip was not counted", SkipSummary())
	}
	skips.count, skips.reason = nil, nil
}

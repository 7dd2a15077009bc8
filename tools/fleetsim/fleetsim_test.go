package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/tools/internal/repo"
)

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" { // this binary re-executed as a worker
		os.Exit(workerMain(os.Args[1:]))
	}
	os.Exit(testdb.Main(m))
}

// TestShortRun runs the CI version of the simulation (-short: 30 s, 200
// holders over 8 processes, TTL 2 s, churn every ~2 s) on PostgreSQL,
// Redis and etcd (a cluster the run starts; not under the race detector):
// no ID may repeat, every holder claims at the start, and holders fenced
// by a partition or pause issue again.
func TestShortRun(t *testing.T) {
	if testing.Short() {
		t.Skip("a 30 s run per store")
	}
	for _, store := range []string{"postgres", "redis", "etcd"} {
		t.Run(store, func(t *testing.T) {
			switch store {
			case "postgres":
				testdb.Postgres(t)
			case "redis":
				testdb.RequireRedis(t)
			case "etcd":
				if raceEnabled {
					t.Skip("the race detector slows the etcd members in this process too much for a TTL of 2 s")
				}
			}
			c := shortConfig(config{store: store, workers: 8, rate: 2, burst: 200, pool: 5})
			r, err := run(context.Background(), c, testWriter{t})
			if err != nil {
				t.Fatal(err)
			}
			num := func(k string) int {
				n, err := strconv.Atoi(r.get(k))
				if err != nil {
					t.Fatalf("%s: %q", k, r.get(k))
				}
				return n
			}
			if r.Dups != 0 {
				t.Errorf("%d duplicate IDs", r.Dups)
			}
			if num("ids") < c.holders*10 {
				t.Errorf("only %d IDs issued", num("ids"))
			}
			if got := num("start_claims"); got != c.holders {
				t.Errorf("%d of %d holders claimed at the start", got, c.holders)
			}
			if num("fence_episodes") > 0 && num("healed") == 0 {
				t.Errorf("no holder fenced by churn issued again (%d episodes)", num("fence_episodes"))
			}
		})
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// TestDocsTable: the tables in docs/fleet.md are the ones
// "fleetsim -table docs/fleet/results" and "-table docs/fleet/faults" print
// from the committed reports.
func TestDocsTable(t *testing.T) {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "fleet.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"results", "faults"} {
		begin, end := "<!-- fleetsim -table docs/fleet/"+dir+" -->\n", "<!-- end of table -->"
		s := string(doc)
		i := strings.Index(s, begin)
		if i < 0 {
			t.Errorf("docs/fleet.md lacks the table marker %q", begin)
			continue
		}
		j := strings.Index(s[i:], end)
		if j < 0 {
			t.Errorf("docs/fleet.md lacks %q after %q", end, begin)
			continue
		}
		var want strings.Builder
		if err := printTable(&want, filepath.Join(root, "docs", "fleet", dir)); err != nil {
			t.Fatal(err)
		}
		if got := s[i+len(begin) : i+j]; got != want.String() {
			t.Errorf("docs/fleet.md's table of docs/fleet/%s is not the generated one; run go run ./fleetsim -table ../docs/fleet/%s in tools/\ngot:\n%s\nwant:\n%s", dir, dir, got, want.String())
		}
	}
}

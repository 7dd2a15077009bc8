package main_test

import (
	"strconv"
	"strings"
	"testing"
)

func lines(s string) []string { return strings.Fields(s) }

func TestNewObjectIDs(t *testing.T) {
	r := run(t, "", nil, "new")
	r.check(t, 0, nil, nil)
	if ids := lines(r.stdout); len(ids) != 1 || len(ids[0]) != 24 {
		t.Fatalf("idkit new printed %q, want one ObjectID", r.stdout)
	}

	r = run(t, "", []string{"IDKIT_NODE=5"}, "new", "-n", "2000", "-kind", "objectid")
	r.check(t, 0, nil, nil)
	ids := lines(r.stdout)
	if len(ids) != 2000 {
		t.Fatalf("%d IDs, want 2000", len(ids))
	}
	seen := map[string]bool{}
	for i, id := range ids {
		if seen[id] {
			t.Fatalf("duplicate %s", id)
		}
		seen[id] = true
		if i > 0 && id[:8] < ids[i-1][:8] {
			t.Fatalf("time went back: %s after %s", id, ids[i-1])
		}
	}
	// The IDs inspect cleanly, and they are of now.
	in := run(t, strings.Join(ids[:3], "\n"), nil, "inspect", "--json")
	in.check(t, 0, nil, nil)
	for _, j := range decodeLines(t, in.stdout) {
		if j.Kind != "objectid" || len(j.Notes) != 0 {
			t.Errorf("inspect of a new ID: %+v", j)
		}
	}
}

func TestNewSnowflakes(t *testing.T) {
	tests := []struct {
		name   string
		env    []string
		args   []string
		layout string
		node   int64
	}{
		{"flag", nil, []string{"-node", "5"}, "twitter", 5},
		{"env", []string{"IDKIT_NODE=1023"}, nil, "twitter", 1023},
		{"flag over env", []string{"IDKIT_NODE=1"}, []string{"-node", "2"}, "twitter", 2},
		{"dc:worker", nil, []string{"-node", "3:17"}, "twitter", 113},
		{"sonyflake", nil, []string{"-node", "65535", "-layout", "sonyflake"}, "sonyflake", 65535},
		{"layout env", []string{"IDKIT_LAYOUT=discord", "IDKIT_NODE=0"}, nil, "discord", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"new", "-kind", "snowflake", "-n", "3000"}, tt.args...)
			r := run(t, "", tt.env, args...)
			r.check(t, 0, nil, nil)
			ids := lines(r.stdout)
			if len(ids) != 3000 {
				t.Fatalf("%d IDs, want 3000", len(ids))
			}
			var prev int64
			for _, s := range ids {
				v, err := strconv.ParseInt(s, 10, 64)
				if err != nil || v <= prev {
					t.Fatalf("%q after %d: not increasing (%v)", s, prev, err)
				}
				prev = v
			}
			in := run(t, "", nil, "inspect", "--json", "--layout", tt.layout, ids[0], ids[len(ids)-1])
			in.check(t, 0, nil, nil)
			for _, j := range decodeLines(t, in.stdout) {
				if *j.Node != tt.node || len(j.Notes) != 0 {
					t.Errorf("inspect: %+v, want node %d and no notes", j, tt.node)
				}
			}
		})
	}
}

// TestNewSnowflakeRunsDoNotOverlap runs the generator for one node back to
// back: each run waits for the clock to leave its last tick, so the next run
// cannot repeat an ID.
func TestNewSnowflakeRunsDoNotOverlap(t *testing.T) {
	seen := map[string]bool{}
	for range 10 {
		r := run(t, "", []string{"IDKIT_NODE=9"}, "new", "-kind", "sf", "-n", "50")
		r.check(t, 0, nil, nil)
		for _, id := range lines(r.stdout) {
			if seen[id] {
				t.Fatalf("ID %s repeated by a later run", id)
			}
			seen[id] = true
		}
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		env  []string
		args []string
		msg  string
	}{
		{nil, []string{"-kind", "snowflake"}, "a snowflake needs a node ID: pass --node N or set IDKIT_NODE"},
		{[]string{"IDKIT_NODE="}, []string{"-kind", "snowflake"}, "a snowflake needs a node ID"},
		{nil, []string{"-kind", "snowflake", "-node", "1024"}, `--node "1024": out of range: layout twitter has node IDs 0 to 1023`},
		{nil, []string{"-kind", "snowflake", "-node", "-1"}, `--node "-1": out of range: layout twitter has node IDs 0 to 1023`},
		{[]string{"IDKIT_NODE=seven"}, []string{"-kind", "snowflake"}, `IDKIT_NODE "seven": not a decimal number`},
		{nil, []string{"-kind", "snowflake", "-node", "32:1"}, `--node "32:1": out of range: HI and LO are each 0 to 31`},
		{nil, []string{"-kind", "snowflake", "-node", "1:1", "-layout", "sonyflake"}, `--node "1:1": the HI:LO form is only for the twitter and discord layouts`},
		{nil, []string{"-kind", "ulid"}, `--kind: bad kind: unknown kind "ulid" (want objectid, snowflake or uuid)`},
		{nil, []string{"-kind", "uuid", "-node", "1"}, "--node and --layout are for --kind snowflake"},
		{nil, []string{"-n", "-1"}, "--n -1: the count must not be negative"},
		{nil, []string{"-n", "many"}, `invalid value "many" for flag --n`},
		{nil, []string{"-node", "1"}, "--node and --layout are for --kind snowflake"},
		{nil, []string{"5"}, `unexpected argument "5"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := run(t, "", tt.env, append([]string{"new"}, tt.args...)...)
			r.check(t, 2, nil, []string{"idkit new: " + tt.msg, "Run 'idkit help new' for usage."})
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
		})
	}
}

func TestNewNoProgressWhenNotTerminal(t *testing.T) {
	r := run(t, "", nil, "new", "-n", "150000")
	r.check(t, 0, nil, nil) // check also requires an empty stderr
	if n := strings.Count(r.stdout, "\n"); n != 150000 {
		t.Errorf("%d lines, want 150000", n)
	}
}

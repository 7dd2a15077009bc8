package main_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/idkit-go/idkit/types"
)

func TestInspectUUID(t *testing.T) {
	const v7 = "0190a3c2-5b7e-7def-8a12-3456789abcde"
	r := run(t, "", nil, "inspect", strings.ToUpper(v7))
	r.check(t, 0, []string{v7 + "  UUID version 7, variant RFC 9562",
		"time      2024-07-11T21:45:42.014Z  (local 2024-07-12T06:45:42.014+09:00 JST)",
		"unix_ms   1720734342014", "│ unix_ms 48", "│ rand_b 62"}, nil)

	// JSON, from stdin, in the wrapped forms mongosh and extended JSON print.
	in := `UUID("` + v7 + `")` + "\n" + `{"$uuid":"f81d4fae7dec11d0a76500a0c91e6bf6"}` + "\n00000000-0000-0000-0000-000000000000\n"
	r = run(t, in, nil, "inspect", "--json")
	r.check(t, 0, nil, nil)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), r.stdout)
	}
	type rec struct {
		Kind, ID, Time, Variant string
		Version                 int
		UnixMS                  *int64 `json:"unix_ms"`
		Notes                   []string
		Fields                  []struct {
			Name  string
			Bits  int
			Value uint64
		}
	}
	var recs [3]rec
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if a := recs[0]; a.Kind != "uuid" || a.ID != v7 || a.Version != 7 || a.Variant != "RFC 9562" ||
		a.Time != "2024-07-11T21:45:42.014Z" || a.UnixMS == nil || *a.UnixMS != 1720734342014 || len(a.Fields) != 5 || a.Fields[0].Value != 1720734342014 {
		t.Errorf("v7 record %+v", a)
	}
	if b := recs[1]; b.ID != "f81d4fae-7dec-11d0-a765-00a0c91e6bf6" || b.Version != 1 || b.Time != "" || b.UnixMS != nil || len(b.Notes) != 1 {
		t.Errorf("v1 record %+v", b)
	}
	if c := recs[2]; c.Version != 0 || len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "nil UUID") {
		t.Errorf("nil record %+v", c)
	}

	r = run(t, "", nil, "inspect", "0190a3c2-5b7e-7def-8a12-3456789abcdx", "0190a3c2")
	r.check(t, 1, nil, []string{`"0190a3c2-5b7e-7def-8a12-3456789abcdx" is not a UUID`, `"0190a3c2" has 8 hex digits, an ObjectID has 24 and a UUID 32`})
}

func TestNewUUID(t *testing.T) {
	before := time.Now().Add(-time.Second)
	r := run(t, "", nil, "new", "--kind", "uuid", "--n", "1000")
	r.check(t, 0, nil, nil)
	after := time.Now().Add(time.Second)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 1000 {
		t.Fatalf("%d lines", len(lines))
	}
	var prev types.UUID
	for _, l := range lines {
		id, err := types.ParseUUID(l)
		if err != nil || id.String() != l {
			t.Fatalf("line %q: %v", l, err)
		}
		if bytes.Compare(id[:], prev[:]) <= 0 || id[6]>>4 != 7 {
			t.Fatalf("%s after %s", id, prev)
		}
		if tm := id.Time(); tm.Before(before) || tm.After(after) {
			t.Fatalf("time %v", tm)
		}
		prev = id
	}
	run(t, "", nil, "convert", lines[0]).check(t, 1, nil, []string{"is a UUID: convert handles ObjectIDs and Snowflakes"})
	run(t, "", nil, "range", "--kind", "uuid", "--from", "2024-01-01").check(t, 2, nil, []string{"--kind uuid"})
}

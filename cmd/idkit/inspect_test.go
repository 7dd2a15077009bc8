package main_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// goldenOID is one seed ObjectID of testdata/types_golden.json.
type goldenOID struct {
	Hex, Source, Time string
	ProcessUnique     string `json:"process_unique"`
	Unix              int64
	Counter           uint32
	Legacy            struct {
		Machine uint32
		PID     uint16
		Counter uint32
	}
}

// goldenObjectIDs reads the seed ObjectIDs of testdata/types_golden.json.
func goldenObjectIDs(t *testing.T) []goldenOID {
	t.Helper()
	b, err := os.ReadFile("../../testdata/types_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		ObjectID struct{ Valid []goldenOID }
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.ObjectID.Valid) < 4 {
		t.Fatalf("types_golden.json has %d ObjectIDs, want the 4 seed IDs", len(g.ObjectID.Valid))
	}
	return g.ObjectID.Valid
}

// inspectJSON is the part of inspect --json that the tests check.
type inspectJSON struct {
	Input, Kind, ID, Time, Local, Layout, Error string
	Unix, UnixMS, Tick, Node, Sequence          *int64
	UnixMSRaw                                   *int64 `json:"unix_ms"`
	ProcessUnique                               string `json:"process_unique"`
	Counter                                     *uint32
	Datacenter, Worker, Process                 *int64
	Legacy                                      *struct {
		Machine string
		PID     uint16
		Counter uint32
	}
	Fields []struct {
		Name  string
		Bits  int
		Value uint64
	}
	Notes []string
}

func decodeLines(t *testing.T, s string) []inspectJSON {
	t.Helper()
	var out []inspectJSON
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		var r inspectJSON
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q is not JSON: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

func TestInspectSeedObjectIDs(t *testing.T) {
	// The seeds' times, as the issue states them, independent of the
	// golden file.
	seedTimes := map[string]string{
		"632c6d93d65f74baeb22a2c9": "2022-09-22T14:13:39Z",
		"633304ee48d18c808c6bb23a": "2022-09-27T14:13:02Z",
		"5fd049327fbb28868f4660a5": "2020-12-09T03:49:06Z",
		"4df2dcec2cdcd20936a8b817": "2011-06-11T03:11:40Z",
	}
	for _, g := range goldenObjectIDs(t) {
		t.Run(g.Hex, func(t *testing.T) {
			if want, ok := seedTimes[g.Hex]; ok && want != g.Time {
				t.Fatalf("golden time %s, seed says %s", g.Time, want)
			}
			r := run(t, "", nil, "inspect", "--json", g.Hex)
			r.check(t, 0, nil, nil)
			got := decodeLines(t, r.stdout)
			if len(got) != 1 {
				t.Fatalf("%d JSON lines, want 1", len(got))
			}
			j := got[0]
			if j.Kind != "objectid" || j.ID != g.Hex || j.Input != g.Hex || j.Time != g.Time || *j.Unix != g.Unix ||
				j.ProcessUnique != g.ProcessUnique || *j.Counter != g.Counter {
				t.Errorf("got %+v, want %+v", j, g)
			}
			if j.Legacy == nil || j.Legacy.PID != g.Legacy.PID || j.Legacy.Counter != g.Legacy.Counter ||
				j.Legacy.Machine != strings.ToLower(g.Hex[8:14]) {
				t.Errorf("legacy = %+v, want machine %s pid %d counter %d", j.Legacy, g.Hex[8:14], g.Legacy.PID, g.Legacy.Counter)
			}
			if len(j.Fields) != 3 || j.Fields[0].Value != uint64(g.Unix) || j.Fields[2].Value != uint64(g.Counter) {
				t.Errorf("fields = %+v", j.Fields)
			}

			text := run(t, "", nil, "inspect", g.Hex)
			text.check(t, 0, []string{g.Hex + "  ObjectID", "time      " + g.Time, "process   " + g.ProcessUnique,
				" JST)", "+09:00"}, nil)
		})
	}
}

func TestInspectLegacySeed003(t *testing.T) {
	r := run(t, "", nil, "inspect", "4df2dcec2cdcd20936a8b817")
	r.check(t, 0, []string{
		"time      2011-06-11T03:11:40Z  (local 2011-06-11T12:11:40+09:00 JST)",
		"legacy    machine 2cdcd2  pid 2358  counter 11057175  (layout before MongoDB 3.4)",
		"│ time 32                             │ process 40                                   │ counter 24                 │",
		"│ 01001101 11110010 11011100 11101100 │ 00101100 11011100 11010010 00001001 00110110 │ 10101000 10111000 00010111 │",
		"│ 1307761900                          │ 2cdcd20936                                   │ 11057175                   │",
	}, nil)
}

func TestInspectSnowflakeGolden(t *testing.T) {
	b, err := os.ReadFile("../../testdata/snowflake_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Vectors []struct {
			Layout, ID, Time     string
			Tick, Node, Sequence int64
		}
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Vectors) == 0 {
		t.Fatal("no vectors")
	}
	for _, v := range g.Vectors {
		t.Run(v.Layout+"/"+v.ID, func(t *testing.T) {
			r := run(t, "", nil, "inspect", "--json", "--layout", v.Layout, v.ID)
			r.check(t, 0, nil, nil)
			j := decodeLines(t, r.stdout)[0]
			if j.Kind != "snowflake" || j.ID != v.ID || j.Time != v.Time || *j.Tick != v.Tick || *j.Node != v.Node ||
				*j.Sequence != v.Sequence || j.Layout != v.Layout {
				t.Errorf("got %+v, want %+v", j, v)
			}
		})
	}
}

func TestInspectSnowflakeText(t *testing.T) {
	r := run(t, "", nil, "inspect", "1541815603606036480")
	r.check(t, 0, []string{
		"1541815603606036480  Snowflake, layout twitter(41/10/12, 1ms, epoch 2010-11-04T01:42:54.657Z)\n",
		"  time      2022-06-28T16:07:40.105Z  (local 2022-06-29T01:07:40.105+09:00 JST)\n",
		"  tick      367597485448\n",
		"  node      378  (datacenter 11, worker 26)\n",
		"  sequence  0\n",
		`  ┌──────────┬─────────────────────────────────────────────────────┬─────────────┬────────────────┐
  │ unused 1 │ time 41                                             │ node 10     │ sequence 12    │
  ├──────────┼─────────────────────────────────────────────────────┼─────────────┼────────────────┤
  │ 0        │ 0010 1010 1100 1011 0100 0010 0011 1110 1100 0100 0 │ 01011 11010 │ 0000 0000 0000 │
  │ 0        │ 367597485448                                        │ 378         │ 0              │
  └──────────┴─────────────────────────────────────────────────────┴─────────────┴────────────────┘
`}, nil)

	d := run(t, "", []string{"IDKIT_LAYOUT=discord"}, "inspect", "175928847299117063")
	d.check(t, 0, []string{"layout discord(", "time      2016-04-30T11:18:25.796Z", "node      32  (worker 1, process 0)", "sequence  7"}, nil)

	s := run(t, "", nil, "inspect", "--layout=sonyflake", "175928847299117063")
	s.check(t, 0, []string{"layout sonyflake(", "machine   7", "│ sequence 8 │ machine 16          │"}, nil)
}

func TestInspectCustomLayout(t *testing.T) {
	r := run(t, "", nil, "inspect", "--json", "--layout", "custom:time=41,node=10,seq=12,unit=1ms,epoch=2015-01-01T00:00:00Z", "175928847299117063")
	r.check(t, 0, nil, nil)
	j := decodeLines(t, r.stdout)[0]
	if j.Time != "2016-04-30T11:18:25.796Z" || *j.Node != 32 || *j.Sequence != 7 || j.Worker != nil {
		t.Errorf("custom Discord layout: %+v", j)
	}
	// An ID with bits above a narrow layout's fields is invalid.
	bad := run(t, "", nil, "inspect", "--layout", "custom:time=20,seq=2,epoch=2015-01-01", "175928847299117063", "5")
	bad.check(t, 1, []string{"5  Snowflake, layout custom(20/0/2"}, []string{`argument 1: id does not fit layout: 175928847299117063 does not fit 22 bits`})
}

func TestInspectBadInputsContinue(t *testing.T) {
	stdin := "632c6d93d65f74baeb22a2c9\n  not-an-id \n\n1541815603606036480 632c6d93d65f74baeb22a2cg\r\n99999999999999999999\n"
	r := run(t, stdin, nil, "inspect")
	r.check(t, 1, []string{"632c6d93d65f74baeb22a2c9  ObjectID", "1541815603606036480  Snowflake"}, []string{
		`idkit inspect: stdin line 2: not an ID: "not-an-id" is neither an ObjectID (24 hex digits), a Snowflake (decimal) nor a UUID`,
		`idkit inspect: stdin line 4: not an ID: "632c6d93d65f74baeb22a2cg" has 24 characters but "g" is not a hex digit`,
		`idkit inspect: stdin line 5: not an ID: "99999999999999999999" has 20 digits, too many for a Snowflake (at most 19)`,
	})
	if n := strings.Count(r.stderr, "\n"); n != 3 {
		t.Errorf("%d stderr lines, want 3:\n%s", n, r.stderr)
	}

	j := run(t, "", nil, "inspect", "xyz", "--json", "5fd049327fbb28868f4660a5")
	j.check(t, 1, nil, []string{`idkit inspect: argument 1: not an ID: "xyz"`})
	lines := decodeLines(t, j.stdout)
	if len(lines) != 2 || lines[0].Input != "xyz" || !strings.Contains(lines[0].Error, "not an ID") || lines[1].Time != "2020-12-09T03:49:06Z" {
		t.Errorf("JSON lines %+v: want an error object then the ObjectID", lines)
	}
}

func TestInspectWrappersAndNotes(t *testing.T) {
	r := run(t, "", nil, "inspect", "--json", `ObjectId("633304ee48d18c808c6bb23a")`, "000000000000000000000000", "0", "9223372036854775807")
	r.check(t, 0, nil, nil)
	j := decodeLines(t, r.stdout)
	if len(j) != 4 || j[0].Time != "2022-09-27T14:13:02Z" || j[0].Input != `ObjectId("633304ee48d18c808c6bb23a")` {
		t.Fatalf("got %+v", j)
	}
	for i, want := range []string{"", "nil ObjectID", "zero Snowflake", "in the future"} {
		if got := strings.Join(j[i].Notes, ";"); !strings.Contains(got, want) || want == "" && got != "" {
			t.Errorf("input %s notes %q, want %q", j[i].Input, got, want)
		}
	}
}

func TestInspectFlagErrors(t *testing.T) {
	tests := []struct {
		env  []string
		args []string
		msg  string
	}{
		{nil, []string{"inspect", "--layout", "bogus", "1"}, `--layout: bad layout: "bogus": unknown layout "bogus"`},
		{nil, []string{"inspect", "--layout"}, "flag needs an argument: --layout"},
		{nil, []string{"inspect", "--colour", "1"}, "flag provided but not defined: --colour"},
		{[]string{"IDKIT_LAYOUT=custom:time=70"}, []string{"inspect", "1"}, "IDKIT_LAYOUT: bad layout"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := run(t, "", tt.env, tt.args...)
			r.check(t, 2, nil, []string{"idkit inspect: " + tt.msg, "Run 'idkit help inspect' for usage."})
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
		})
	}
}

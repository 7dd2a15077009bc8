package main_test

import (
	"strconv"
	"strings"
	"testing"
)

func TestRangeObjectID(t *testing.T) {
	r := run(t, "", nil, "range", "--from", "2022-09-22T14:13:39Z")
	r.check(t, 0, []string{
		"from   2022-09-22T14:13:39Z           632c6d930000000000000000  (smallest ID of its second)",
		"632c6d940000000000000000  (smallest ID of the next second, excluded)",
		"SELECT * FROM mytable WHERE id >= '\\x632c6d930000000000000000'::bytea AND id < '\\x632c6d940000000000000000'::bytea;",
		`db.mycoll.find({ _id: { $gte: ObjectId("632c6d930000000000000000"), $lt: ObjectId("632c6d940000000000000000") } })`,
	}, nil)
	// An ObjectID made in that second lies inside.
	if !(strings.Compare("632c6d930000000000000000", "632c6d93d65f74baeb22a2c9") < 0 && "632c6d93d65f74baeb22a2c9" < "632c6d940000000000000000") {
		t.Fatal("seed ID outside its second's range")
	}

	d := run(t, "", nil, "range", "--from", "2022-09-22", "--to", "2022-09-23", "--table", "events", "--column", "event_id", "--collection", "events")
	d.check(t, 0, []string{
		"range  event_id >= 632ba5800000000000000000 AND event_id < 632cf7000000000000000000",
		"SELECT * FROM events WHERE event_id >= X'632BA5800000000000000000' AND event_id < X'632CF7000000000000000000';",
		"SELECT * FROM events WHERE event_id >= '632ba5800000000000000000' AND event_id < '632cf7000000000000000000';",
		`db.events.find({ _id: { $gte: ObjectId("632ba5800000000000000000"), $lt: ObjectId("632cf7000000000000000000") } })`,
	}, nil)
}

func TestRangeSnowflake(t *testing.T) {
	r := run(t, "", nil, "range", "--layout", "discord", "--from", "2016-04-30T11:18:25.796Z")
	r.check(t, 0, []string{"kind   Snowflake, layout discord(", "SELECT * FROM mytable WHERE id >= ", `NumberLong("`}, nil)
	// The Discord reference ID is inside its tick's range, and the range is
	// exactly one tick: 2^22 IDs.
	f := strings.Fields(r.stdout[strings.Index(r.stdout, "range  "):])
	lo, err1 := strconv.ParseInt(f[3], 10, 64)
	hi, err2 := strconv.ParseInt(f[7], 10, 64)
	if err1 != nil || err2 != nil || lo > 175928847299117063 || hi <= 175928847299117063 || hi-lo != 1<<22 {
		t.Errorf("range %v: lo %d hi %d", f[:8], lo, hi)
	}

	tw := run(t, "", nil, "range", "--kind", "snowflake", "--from", "2022-06-28T16:07:40.105Z", "--to", "2022-06-28T16:07:40.106Z")
	tw.check(t, 0, []string{"range  id >= 1541815603604488192 AND id < 1541815603608682496"}, nil)
}

func TestRangeErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{}, 2, "--from is required"},
		{[]string{"--from", "soon"}, 2, `--from: bad time: "soon"`},
		{[]string{"--from", "2022-01-02", "--to", "2022-01-01"}, 2, "--to 2022-01-01T00:00:00Z is not after --from 2022-01-02T00:00:00Z"},
		{[]string{"--from", "2022-01-02", "--to", "later"}, 2, `--to: bad time: "later"`},
		// Every bad flag value is a bad command line: exit status 2.
		{[]string{"--from", "yesterday"}, 2, `--from: bad time: "yesterday"`},
		{[]string{"--from", "1960-01-01"}, 2, "invalid time range: 1960-01-01T00:00:00Z is outside the ObjectID time range 1970-01-01T00:00:00Z to 2106-02-07T06:28:15Z"},
		{[]string{"--from", "1969-12-31"}, 2, "invalid time range: 1969-12-31T00:00:00Z is outside the ObjectID time range"},
		{[]string{"--from", "2200-01-01"}, 2, "invalid time range: 2200-01-01T00:00:00Z is outside the ObjectID time range"},
		{[]string{"--from", "2000-01-01", "--layout", "twitter"}, 2, "time out of layout range: 2000-01-01T00:00:00Z is before the twitter epoch"},
		{[]string{"--from", "2000-01-01", "--to", "2300-01-01", "--layout", "twitter"}, 2, "invalid time range: time out of layout range: 2300-01-01T00:00:00Z is at or after the twitter end"},
		{[]string{"--from", "2000-01-01", "--kind", "objectid", "--layout", "twitter"}, 2, "--layout is for --kind snowflake"},
		{[]string{"--from", "now", "extra"}, 2, `unexpected argument "extra"`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := run(t, "", nil, append([]string{"range"}, tt.args...)...)
			r.check(t, tt.code, nil, []string{"idkit range: " + tt.msg})
		})
	}
}

func TestHelp(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		out  string // stdout for help requests, stderr otherwise
	}{
		{[]string{"-h"}, 0, "usage: idkit <command> [flags] [arguments]"},
		{[]string{"--help"}, 0, "Exit status: 0 when everything succeeded"},
		{[]string{"help"}, 0, "IDKIT_NODE"},
		{[]string{"help", "inspect"}, 0, "custom:time=41,node=10,seq=12,unit=1ms,epoch=2015-01-01T00:00:00Z"},
		{[]string{"help", "new"}, 0, "never picks node 0"},
		{[]string{"help", "convert"}, 0, "base64url  URL alphabet, unpadded"},
		{[]string{"help", "range"}, 0, "Times: RFC 3339"},
		{[]string{"inspect", "-h"}, 0, "JSON fields:"},
		{[]string{"range", "--help"}, 0, "--collection NAME"},
		{[]string{}, 2, "usage: idkit <command>"},
		{[]string{"help", "frobnicate"}, 2, `idkit help: unknown command "frobnicate"`},
		{[]string{"frobnicate"}, 2, `idkit: unknown command "frobnicate"`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := run(t, "", nil, tt.args...)
			if tt.code == 0 {
				r.check(t, 0, []string{tt.out}, nil)
			} else {
				r.check(t, tt.code, nil, []string{tt.out})
				if r.stdout != "" {
					t.Errorf("stdout %q, want nothing", r.stdout)
				}
			}
		})
	}
}

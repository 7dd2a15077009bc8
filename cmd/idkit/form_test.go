package main_test

import (
	"strings"
	"testing"

	"github.com/idkit-go/idkit/types"
)

// TestInspectForm decodes scatter keys of each kind with --form, and checks
// what inspect says of a key given without it, and of an ordered ID given
// as a key.
func TestInspectForm(t *testing.T) {
	const snow = "1946618112823218176" // twitter, sequence 0
	plain := decodeLines(t, run(t, "", nil, "inspect", "--json", snow).stdout)[0]
	for _, f := range []types.Form{types.BitReversed(), types.ShardBits(4)} {
		key, err := f.Snowflake(types.MustParseSnowflake(snow))
		if err != nil {
			t.Fatal(err)
		}
		r := run(t, "", nil, "inspect", "--json", "--form", f.String(), key.String())
		r.check(t, 0, []string{`"form":"` + f.String() + `"`, `"key":"` + key.String() + `"`}, nil)
		j := decodeLines(t, r.stdout)[0]
		if j.ID != snow || j.Time != plain.Time || *j.Node != *plain.Node {
			t.Errorf("--form %s %s: id %s time %s node %d; want %s %s %d", f, key, j.ID, j.Time, *j.Node, snow, plain.Time, *plain.Node)
		}
		run(t, "", nil, "inspect", "--form", f.String(), key.String()).check(t, 0,
			[]string{"key       " + key.String() + "  (form " + f.String(), "time      " + plain.Time}, nil)
	}
	// Without --form, a bit-reversed key of an ID made at sequence 0 reads
	// as a time near the epoch, and inspect says what it may be.
	key, _ := types.BitReversed().Snowflake(types.MustParseSnowflake(snow))
	j := decodeLines(t, run(t, "", nil, "inspect", "--json", key.String()).stdout)[0]
	if !strings.Contains(strings.Join(j.Notes, " "), "--form") {
		t.Errorf("a reversed key without --form: notes %q; want a hint at --form", j.Notes)
	}

	oid := types.MustParseObjectID("6745f0a8d65f74baeb22a2c9")
	okey, _ := types.ShardBits(8).ObjectID(oid)
	r := run(t, "", nil, "inspect", "--json", "--form", "shard:8", okey.Hex())
	r.check(t, 0, nil, nil)
	if j := decodeLines(t, r.stdout)[0]; j.ID != oid.Hex() || j.Time != "2024-11-26T16:00:40Z" {
		t.Errorf("ObjectID key: id %s time %s", j.ID, j.Time)
	}

	u := types.MustParseUUID("019a4c1e-2f00-7abc-9def-0123456789ab")
	ukey, _ := types.ShardBits(8).UUID(u)
	r = run(t, "", nil, "inspect", "--json", "--form", "shard:8", ukey.String())
	r.check(t, 0, nil, nil)
	if j := decodeLines(t, r.stdout)[0]; j.ID != u.String() || j.Time != u.Time().Format("2006-01-02T15:04:05.999Z07:00") {
		t.Errorf("UUID key: id %s time %s; want %s %s", j.ID, j.Time, u, u.Time())
	}
	// A UUID key is recognised without --form: no time, and a hint.
	j = decodeLines(t, run(t, "", nil, "inspect", "--json", ukey.String()).stdout)[0]
	if j.Time != "" || !strings.Contains(strings.Join(j.Notes, " "), "--form shard:S") {
		t.Errorf("UUID key without --form: time %q notes %q", j.Time, j.Notes)
	}
	// An ordered UUID given as a key is an error, not a wrong time.
	run(t, "", nil, "inspect", "--form", "shard:8", u.String()).check(t, 1, nil, []string{"version 7"})
	// Bad forms are usage errors.
	run(t, "", nil, "inspect", "--form", "shard:17", snow).check(t, 2, nil, []string{"shard:17"})
	run(t, "", nil, "inspect", "--form", "reversed", oid.Hex()).check(t, 1, nil, []string{"reversed"})
}

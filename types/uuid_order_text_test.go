package types_test

import (
	"encoding/json"
	"errors"
	"flag"
	"testing"

	"github.com/idkit-go/idkit/types"
)

func TestUUIDCompare(t *testing.T) {
	a := types.MustParseUUID("0190a3c2-5b7e-7def-8a12-3456789abcde")
	b := types.MustParseUUID("0190a3c2-5b7e-7def-8a12-3456789abcdf")
	c := types.MustParseUUID("ff90a3c2-5b7e-7def-8a12-3456789abcd0")
	for _, tc := range []struct {
		x, y types.UUID
		want int
	}{{a, a, 0}, {a, b, -1}, {b, a, 1}, {b, c, -1}, {types.UUID{}, a, -1}} {
		if got := tc.x.Compare(tc.y); got != tc.want {
			t.Errorf("%s.Compare(%s) = %d, want %d", tc.x, tc.y, got, tc.want)
		}
	}
	prev := types.NewUUIDv7()
	for range 1000 {
		id := types.NewUUIDv7()
		if id.Compare(prev) <= 0 {
			t.Fatalf("NewUUIDv7 %s not after %s", id, prev)
		}
		prev = id
	}
}

func TestNullUUIDText(t *testing.T) {
	id := types.MustParseUUID(uuidText)
	for _, tc := range []struct {
		n    types.NullUUID
		text string
	}{{types.NullUUID{}, ""}, {types.NullUUID{ID: id, Valid: true}, uuidText}} {
		b, err := tc.n.MarshalText()
		if err != nil || string(b) != tc.text {
			t.Fatalf("MarshalText(%+v) = %q, %v; want %q", tc.n, b, err, tc.text)
		}
		got := types.NullUUID{ID: types.NewUUIDv7(), Valid: true}
		if err := got.UnmarshalText(b); err != nil || got != tc.n {
			t.Fatalf("UnmarshalText(%q) = %+v, %v; want %+v", b, got, err, tc.n)
		}
	}
	keep := types.NullUUID{ID: id, Valid: true}
	if err := keep.UnmarshalText([]byte("not-a-uuid")); !errors.Is(err, types.ErrInvalidUUID) || keep.ID != id || !keep.Valid {
		t.Fatalf("UnmarshalText(bad) = %+v, %v", keep, err)
	}

	// Map keys and flag.TextVar use the text form.
	m := map[types.NullUUID]int{{ID: id, Valid: true}: 1}
	b, err := json.Marshal(m)
	if err != nil || string(b) != `{"`+uuidText+`":1}` {
		t.Fatalf("json map = %s, %v", b, err)
	}
	var back map[types.NullUUID]int
	if err := json.Unmarshal(b, &back); err != nil || back[types.NullUUID{ID: id, Valid: true}] != 1 {
		t.Fatalf("json map back = %v, %v", back, err)
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var f types.NullUUID
	fs.TextVar(&f, "id", types.NullUUID{}, "an ID")
	if err := fs.Parse([]string{"-id", uuidText}); err != nil || f != (types.NullUUID{ID: id, Valid: true}) {
		t.Fatalf("flag = %+v, %v", f, err)
	}
}

package types_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/idkit-go/idkit/types"
)

const seedHex = "632c6d93d65f74baeb22a2c9"

func TestObjectIDJSON(t *testing.T) {
	id := types.MustParseObjectID(seedHex)
	b, err := json.Marshal(struct {
		ID types.ObjectID `json:"id"`
	}{id})
	if err != nil || string(b) != `{"id":"`+seedHex+`"}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	tests := []struct {
		in      string
		want    types.ObjectID
		wantErr bool
	}{
		{`"` + seedHex + `"`, id, false},
		{`"632C6D93D65F74BAEB22A2C9"`, id, false},
		{`{"$oid":"` + seedHex + `"}`, id, false},
		{` { "$oid" : "` + seedHex + `" } `, id, false},
		{`null`, types.ObjectID{}, false},
		{`""`, types.ObjectID{}, false},
		{`"\u0036` + seedHex[1:] + `"`, id, false}, // escaped digit
		{`"632c6d93"`, types.ObjectID{}, true},
		{`"zz2c6d93d65f74baeb22a2c9"`, types.ObjectID{}, true},
		{`12`, types.ObjectID{}, true},
		{`{"$oid":12}`, types.ObjectID{}, true},
		{`{"oid":"` + seedHex + `"}`, types.ObjectID{}, true},
		{`[1]`, types.ObjectID{}, true},
		{`"unterminated`, types.ObjectID{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := types.MustParseObjectID("4df2dcec2cdcd20936a8b817") // must survive errors
			before := got
			err := got.UnmarshalJSON([]byte(tt.in))
			if tt.wantErr {
				if !errors.Is(err, types.ErrInvalidObjectID) {
					t.Fatalf("err = %v, want ErrInvalidObjectID", err)
				}
				if got != before {
					t.Fatalf("value changed on error: %v", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestObjectIDText(t *testing.T) {
	id := types.MustParseObjectID(seedHex)
	b, err := id.MarshalText()
	if err != nil || string(b) != seedHex {
		t.Fatalf("MarshalText = %s, %v", b, err)
	}
	var got types.ObjectID
	if err := got.UnmarshalText(b); err != nil || got != id {
		t.Fatalf("UnmarshalText = %v, %v", got, err)
	}
	if err := got.UnmarshalText(nil); err != nil || !got.IsZero() {
		t.Errorf("UnmarshalText(empty) = %v, %v", got, err)
	}
	if err := got.UnmarshalText([]byte("xyz")); !errors.Is(err, types.ErrInvalidObjectID) {
		t.Errorf("UnmarshalText(bad) err = %v", err)
	}
	// As a map key, JSON uses the text form.
	m := map[types.ObjectID]int{id: 1}
	mb, _ := json.Marshal(m)
	var back map[types.ObjectID]int
	if err := json.Unmarshal(mb, &back); err != nil || back[id] != 1 {
		t.Errorf("map key round trip: %s, %v", mb, err)
	}
}

func TestSnowflakeJSON(t *testing.T) {
	s := types.Snowflake(1541815603606036480)
	b, err := json.Marshal(s)
	if err != nil || string(b) != `"1541815603606036480"` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	tests := []struct {
		in      string
		want    types.Snowflake
		wantErr bool
	}{
		{`"1541815603606036480"`, s, false},
		{`1541815603606036480`, s, false},
		{` 42 `, 42, false},
		{`null`, 0, false},
		{`""`, 0, false},
		{`"0"`, 0, false},
		{`-1`, 0, true},
		{`"-1"`, 0, true},
		{`1.5`, 0, true},
		{`1e3`, 0, true},
		{`9223372036854775808`, 0, true},
		{`"abc"`, 0, true},
		{`true`, 0, true},
		{`"12`, 0, true},
		{`{}`, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := types.Snowflake(77)
			err := got.UnmarshalJSON([]byte(tt.in))
			if tt.wantErr {
				if !errors.Is(err, types.ErrInvalidSnowflake) || got != 77 {
					t.Fatalf("got %d, %v; want unchanged and ErrInvalidSnowflake", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func TestSnowflakeText(t *testing.T) {
	s := types.Snowflake(123456789)
	b, _ := s.MarshalText()
	var got types.Snowflake
	if err := got.UnmarshalText(b); err != nil || got != s {
		t.Fatalf("round trip = %d, %v", got, err)
	}
	if err := got.UnmarshalText([]byte("1x")); !errors.Is(err, types.ErrInvalidSnowflake) || got != s {
		t.Fatalf("bad text: %d, %v", got, err)
	}
	if err := got.UnmarshalText(nil); err != nil || got != 0 {
		t.Fatalf("empty text: %d, %v", got, err)
	}
}

func TestNullJSON(t *testing.T) {
	type doc struct {
		A types.NullObjectID  `json:"a"`
		B types.NullSnowflake `json:"b"`
		C types.NullObjectID  `json:"c,omitzero"`
	}
	b, err := json.Marshal(doc{})
	if err != nil || string(b) != `{"a":null,"b":null}` {
		t.Fatalf("Marshal(empty) = %s, %v", b, err)
	}
	full := doc{A: types.NullObjectID{ID: types.MustParseObjectID(seedHex), Valid: true}, B: types.NullSnowflake{ID: 9, Valid: true}, C: types.NullObjectID{ID: types.ObjectID{}, Valid: true}}
	b, _ = json.Marshal(full)
	var back doc
	if err := json.Unmarshal(b, &back); err != nil || back != full {
		t.Fatalf("round trip %s = %+v, %v", b, back, err)
	}
	if err := json.Unmarshal([]byte(`{"a":null,"b":null}`), &back); err != nil || back.A.Valid || back.B.Valid {
		t.Fatalf("null: %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"a":"bad"}`), &back); !errors.Is(err, types.ErrInvalidObjectID) {
		t.Fatalf("bad a: %v", err)
	}
	if err := json.Unmarshal([]byte(`{"b":"bad"}`), &back); !errors.Is(err, types.ErrInvalidSnowflake) {
		t.Fatalf("bad b: %v", err)
	}
}

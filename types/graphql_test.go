package types_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/types"
)

// gqlMarshaler and gqlUnmarshaler are gqlgen's graphql.Marshaler and
// graphql.Unmarshaler (github.com/99designs/gqlgen/graphql), copied by
// signature: a type with these methods is a gqlgen custom scalar.
type gqlMarshaler interface{ MarshalGQL(w io.Writer) }
type gqlUnmarshaler interface{ UnmarshalGQL(v any) error }

var (
	_ gqlMarshaler   = types.ObjectID{}
	_ gqlMarshaler   = types.Snowflake(0)
	_ gqlMarshaler   = types.NullObjectID{}
	_ gqlMarshaler   = types.NullSnowflake{}
	_ gqlUnmarshaler = (*types.ObjectID)(nil)
	_ gqlUnmarshaler = (*types.Snowflake)(nil)
	_ gqlUnmarshaler = (*types.NullObjectID)(nil)
	_ gqlUnmarshaler = (*types.NullSnowflake)(nil)
)

// gqlVariable decodes a request's variables as gqlgen does (encoding/json
// with UseNumber) and returns the value of "v".
func gqlVariable(t *testing.T, vars string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(vars))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m["v"]
}

// gqlIntLiteral is what gqlgen passes for an integer literal written in the
// query itself (gqlparser's ast.Value.Value: strconv.ParseInt(raw, 10, 64)).
func gqlIntLiteral(t *testing.T, raw string) any {
	t.Helper()
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func gqlWrite(m gqlMarshaler) string {
	var b bytes.Buffer
	m.MarshalGQL(&b)
	return b.String()
}

func TestObjectIDGraphQL(t *testing.T) {
	id := types.MustParseObjectID(seedHex)
	if got := gqlWrite(id); got != `"`+seedHex+`"` {
		t.Fatalf("MarshalGQL = %s", got)
	}
	tests := []struct {
		name    string
		in      any
		want    types.ObjectID
		wantErr bool
	}{
		{"variable string", gqlVariable(t, `{"v":"`+seedHex+`"}`), id, false},
		{"literal string", strings.ToUpper(seedHex), id, false},
		{"null", gqlVariable(t, `{"v":null}`), types.ObjectID{}, false},
		{"empty string", "", types.ObjectID{}, true},
		{"short string", "632c", types.ObjectID{}, true},
		{"number", gqlVariable(t, `{"v":12}`), types.ObjectID{}, true},
		{"int literal", gqlIntLiteral(t, "12"), types.ObjectID{}, true},
		{"bool", true, types.ObjectID{}, true},
		{"object", gqlVariable(t, `{"v":{"$oid":"`+seedHex+`"}}`), types.ObjectID{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sentinelID
			err := got.UnmarshalGQL(tt.in)
			if tt.wantErr {
				if !errors.Is(err, types.ErrInvalidObjectID) || got != sentinelID {
					t.Fatalf("got %v, %v; want unchanged and ErrInvalidObjectID", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestSnowflakeGraphQL(t *testing.T) {
	s := types.Snowflake(1541815603606036480)
	if got := gqlWrite(s); got != `"1541815603606036480"` {
		t.Fatalf("MarshalGQL = %s; want a string", got)
	}
	tests := []struct {
		name    string
		in      any
		want    types.Snowflake
		wantErr bool
	}{
		{"variable string", gqlVariable(t, `{"v":"1541815603606036480"}`), s, false},
		{"variable number", gqlVariable(t, `{"v":1541815603606036480}`), s, false},
		{"int literal", gqlIntLiteral(t, "1541815603606036480"), s, false},
		{"int", 42, 42, false},
		{"whole float", 4096.0, 4096, false},
		{"largest exact float", float64(1<<53 - 1), 1<<53 - 1, false},
		{"null", gqlVariable(t, `{"v":null}`), 0, false},
		{"empty string", "", 0, true},
		{"negative variable", gqlVariable(t, `{"v":-5}`), 0, true},
		{"negative literal", gqlIntLiteral(t, "-5"), 0, true},
		{"negative int", -5, 0, true},
		{"negative float", -5.0, 0, true},
		{"fraction", gqlVariable(t, `{"v":1.5}`), 0, true},
		{"exponent", gqlVariable(t, `{"v":1e3}`), 0, true},
		{"float fraction", 1.5, 0, true},
		{"float beyond 2^53", float64(1 << 53), 0, true},
		{"NaN", math.NaN(), 0, true},
		{"bad string", "12x", 0, true},
		{"bool", true, 0, true},
		{"list", []any{"1"}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := types.Snowflake(77)
			err := got.UnmarshalGQL(tt.in)
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
	var neg types.Snowflake
	if err := neg.UnmarshalGQL(gqlVariable(t, `{"v":-5}`)); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Fatalf("negative input: %v; want an error saying negative", err)
	}
}

func TestNullFormsGraphQL(t *testing.T) {
	id := types.MustParseObjectID(seedHex)
	if got := gqlWrite(types.NullObjectID{}); got != "null" {
		t.Fatalf("NULL NullObjectID MarshalGQL = %s", got)
	}
	if got := gqlWrite(types.NullObjectID{ID: id, Valid: true}); got != `"`+seedHex+`"` {
		t.Fatalf("NullObjectID MarshalGQL = %s", got)
	}
	if got := gqlWrite(types.NullSnowflake{}); got != "null" {
		t.Fatalf("NULL NullSnowflake MarshalGQL = %s", got)
	}
	if got := gqlWrite(types.NullSnowflake{ID: 7, Valid: true}); got != `"7"` {
		t.Fatalf("NullSnowflake MarshalGQL = %s", got)
	}
	for _, in := range []any{nil, ""} {
		o := types.NullObjectID{ID: id, Valid: true}
		if err := o.UnmarshalGQL(in); err != nil || o.Valid {
			t.Errorf("NullObjectID.UnmarshalGQL(%#v) = %+v, %v; want NULL", in, o, err)
		}
		s := types.NullSnowflake{ID: 7, Valid: true}
		if err := s.UnmarshalGQL(in); err != nil || s.Valid {
			t.Errorf("NullSnowflake.UnmarshalGQL(%#v) = %+v, %v; want NULL", in, s, err)
		}
	}
	var o types.NullObjectID
	if err := o.UnmarshalGQL(seedHex); err != nil || o != (types.NullObjectID{ID: id, Valid: true}) {
		t.Fatalf("NullObjectID.UnmarshalGQL = %+v, %v", o, err)
	}
	if err := o.UnmarshalGQL(12); !errors.Is(err, types.ErrInvalidObjectID) || o != (types.NullObjectID{ID: id, Valid: true}) {
		t.Fatalf("NullObjectID.UnmarshalGQL(bad) = %+v, %v", o, err)
	}
	var s types.NullSnowflake
	if err := s.UnmarshalGQL(json.Number("9")); err != nil || s != (types.NullSnowflake{ID: 9, Valid: true}) {
		t.Fatalf("NullSnowflake.UnmarshalGQL = %+v, %v", s, err)
	}
	if err := s.UnmarshalGQL("-1"); !errors.Is(err, types.ErrInvalidSnowflake) || s != (types.NullSnowflake{ID: 9, Valid: true}) {
		t.Fatalf("NullSnowflake.UnmarshalGQL(bad) = %+v, %v", s, err)
	}
}

// What MarshalGQL writes lands in the JSON response; a client sending it
// back as a variable gets the same ID.
func FuzzSnowflakeGraphQL(f *testing.F) {
	f.Add(int64(0))
	f.Add(int64(1541815603606036480))
	f.Add(int64(math.MaxInt64))
	f.Add(int64(-1))
	f.Fuzz(func(t *testing.T, v int64) {
		s := types.Snowflake(v)
		out := gqlWrite(s)
		var back types.Snowflake
		err := back.UnmarshalGQL(gqlVariable(t, `{"v":`+out+`}`))
		if v < 0 {
			if !errors.Is(err, types.ErrInvalidSnowflake) {
				t.Fatalf("negative %d read back: %v", v, err)
			}
			return
		}
		if err != nil || back != s {
			t.Fatalf("GraphQL round trip of %d = %d, %v", v, back, err)
		}
		if err := back.UnmarshalGQL(v); err != nil || back != s {
			t.Fatalf("int64 input %d = %d, %v", v, back, err)
		}
	})
}

func FuzzObjectIDGraphQL(f *testing.F) {
	f.Add(seedHex)
	f.Add("")
	f.Add("zz")
	f.Add(strings.ToUpper(seedHex))
	f.Fuzz(func(t *testing.T, in string) {
		id := sentinelID
		err := id.UnmarshalGQL(in)
		checkObjectID(t, "UnmarshalGQL", []byte(in), id, err)
		if err != nil {
			return
		}
		var back types.ObjectID
		if err := back.UnmarshalGQL(gqlVariable(t, `{"v":`+gqlWrite(id)+`}`)); err != nil || back != id {
			t.Fatalf("GraphQL round trip of %v = %v, %v", id, back, err)
		}
	})
}

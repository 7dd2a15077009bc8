package types_test

import (
	"database/sql/driver"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idkit-go/idkit/types"
)

// The tests in this file pin the decoding contract shared by every form:
// "" and null mean "no ID", the Null forms never become a valid zero from
// them, zero IDs never become SQL keys, and error messages quote a bounded
// prefix of the input.

func TestNullFormsEmptyStringIsNull(t *testing.T) {
	for _, in := range []string{`""`, ` "" `, "\t\"\"\n"} {
		o := types.NullObjectID{ID: types.MustParseObjectID(seedHex), Valid: true}
		if err := o.UnmarshalJSON([]byte(in)); err != nil || o.Valid || !o.ID.IsZero() {
			t.Errorf("NullObjectID.UnmarshalJSON(%q) = %+v, %v; want NULL", in, o, err)
		}
		s := types.NullSnowflake{ID: 5, Valid: true}
		if err := s.UnmarshalJSON([]byte(in)); err != nil || s.Valid || s.ID != 0 {
			t.Errorf("NullSnowflake.UnmarshalJSON(%q) = %+v, %v; want NULL", in, s, err)
		}
	}
	var doc struct {
		A types.NullObjectID  `json:"a"`
		B types.NullSnowflake `json:"b"`
	}
	if err := json.Unmarshal([]byte(`{"a":"","b":""}`), &doc); err != nil || doc.A.Valid || doc.B.Valid {
		t.Fatalf(`json.Unmarshal of "" = %+v, %v; want both NULL`, doc, err)
	}
}

func TestNullFormsWhitespaceRule(t *testing.T) {
	for _, in := range []string{"null", " null", "null ", "\t\r\nnull\n"} {
		o := types.NullObjectID{ID: types.MustParseObjectID(seedHex), Valid: true}
		if err := o.UnmarshalJSON([]byte(in)); err != nil || o.Valid {
			t.Errorf("NullObjectID.UnmarshalJSON(%q) = %+v, %v", in, o, err)
		}
		s := types.NullSnowflake{ID: 5, Valid: true}
		if err := s.UnmarshalJSON([]byte(in)); err != nil || s.Valid {
			t.Errorf("NullSnowflake.UnmarshalJSON(%q) = %+v, %v", in, s, err)
		}
	}
	// Only JSON's four whitespace characters are whitespace.
	for _, in := range []string{"\u00a0null", "\vnull", "nul l"} {
		o := types.NullObjectID{ID: types.MustParseObjectID(seedHex), Valid: true}
		if err := o.UnmarshalJSON([]byte(in)); !errors.Is(err, types.ErrInvalidObjectID) || !o.Valid {
			t.Errorf("NullObjectID.UnmarshalJSON(%q) = %+v, %v; want an error", in, o, err)
		}
		s := types.NullSnowflake{ID: 5, Valid: true}
		if err := s.UnmarshalJSON([]byte(in)); !errors.Is(err, types.ErrInvalidSnowflake) || !s.Valid {
			t.Errorf("NullSnowflake.UnmarshalJSON(%q) = %+v, %v; want an error", in, s, err)
		}
	}
}

func TestObjectIDScanStringMustBeHex(t *testing.T) {
	id := types.MustParseObjectID(seedHex)
	got := id
	err := got.Scan(string(id[:])) // 12 characters of TEXT
	if !errors.Is(err, types.ErrInvalidObjectID) || got != id {
		t.Fatalf("Scan(12-character string) = %v, %v; want an error", got, err)
	}
	if err := got.Scan("abcdefghijkl"); !errors.Is(err, types.ErrInvalidObjectID) {
		t.Fatalf("Scan(\"abcdefghijkl\") err = %v", err)
	}
	var raw types.ObjectID
	if err := raw.Scan(id[:]); err != nil || raw != id {
		t.Fatalf("Scan(12 raw bytes) = %v, %v", raw, err)
	}
}

// TestZeroIDValueIsAnError checks that a zero ID has no SQL value: Value's
// error wraps ErrZeroID and names both usual causes (gormplugin not
// registered, a nullable column), and the value returned with it (which
// only GORM reads, having dropped the error) is itself refused by
// database/sql's converter with the same error, never converted to a number.
func TestZeroIDValueIsAnError(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    driver.Valuer
		null string
	}{
		{"zero ObjectID", types.ObjectID{}, "NullObjectID"},
		{"Snowflake(0)", types.Snowflake(0), "NullSnowflake"},
	} {
		v, err := tt.v.Value()
		if !errors.Is(err, types.ErrZeroID) {
			t.Errorf("%s.Value() err = %v; want ErrZeroID", tt.name, err)
			continue
		}
		for _, want := range []string{"gormplugin", tt.null} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s.Value() err = %q; want it to name %s", tt.name, err, want)
			}
		}
		if v == nil {
			t.Errorf("%s.Value() value is nil; GORM would report only \"unsupported data\"", tt.name)
			continue
		}
		if _, cerr := driver.DefaultParameterConverter.ConvertValue(v); !errors.Is(cerr, types.ErrZeroID) {
			t.Errorf("%s: converting the value returned with the error: %v; want ErrZeroID", tt.name, cerr)
		}
	}
	if _, err := types.Snowflake(-1).Value(); !errors.Is(err, types.ErrInvalidSnowflake) {
		t.Errorf("Snowflake(-1).Value() err = %v; want ErrInvalidSnowflake", err)
	}
	if _, err := (types.NullObjectID{Valid: true}).Value(); !errors.Is(err, types.ErrZeroID) {
		t.Errorf("valid zero NullObjectID.Value() err = %v; want ErrZeroID", err)
	}
	if _, err := (types.NullSnowflake{Valid: true}).Value(); !errors.Is(err, types.ErrZeroID) {
		t.Errorf("valid zero NullSnowflake.Value() err = %v; want ErrZeroID", err)
	}
	if v, err := (types.NullObjectID{}).Value(); v != nil || err != nil {
		t.Errorf("NULL NullObjectID.Value() = %#v, %v", v, err)
	}
	if v, err := (types.NullSnowflake{}).Value(); v != nil || err != nil {
		t.Errorf("NULL NullSnowflake.Value() = %#v, %v", v, err)
	}
}

func TestSnowflakeJSONStringEscapes(t *testing.T) {
	var s types.Snowflake
	if err := s.UnmarshalJSON([]byte(`"\u0031\u0032"`)); err != nil || s != 12 {
		t.Fatalf(`UnmarshalJSON("\u0031\u0032") = %d, %v; want 12`, s, err)
	}
	var doc struct {
		ID types.Snowflake `json:"id"`
	}
	if err := json.Unmarshal([]byte(`{"id":"1\u0032"}`), &doc); err != nil || doc.ID != 12 {
		t.Fatalf("json.Unmarshal = %d, %v", doc.ID, err)
	}
	s = 77
	for _, in := range []string{`"\u002d1"`, `"\n"`, `"1\"`, `"\u00311x"`} {
		if err := s.UnmarshalJSON([]byte(in)); !errors.Is(err, types.ErrInvalidSnowflake) || s != 77 {
			t.Errorf("UnmarshalJSON(%s) = %d, %v; want an error", in, s, err)
		}
	}
}

func TestSnowflakeNegativeSaysNegative(t *testing.T) {
	checks := map[string]func() error{
		"ParseSnowflake":     func() error { _, err := types.ParseSnowflake("-5"); return err },
		"UnmarshalText":      func() error { var s types.Snowflake; return s.UnmarshalText([]byte("-5")) },
		"UnmarshalJSON bare": func() error { var s types.Snowflake; return s.UnmarshalJSON([]byte("-5")) },
		"UnmarshalJSON str":  func() error { var s types.Snowflake; return s.UnmarshalJSON([]byte(`"-5"`)) },
		"json.Unmarshal": func() error {
			var d struct{ SID types.Snowflake }
			return json.Unmarshal([]byte(`{"sid":-5}`), &d)
		},
		"Scan int64":  func() error { var s types.Snowflake; return s.Scan(int64(-5)) },
		"Scan string": func() error { var s types.Snowflake; return s.Scan("-5") },
		"Scan bytes":  func() error { var s types.Snowflake; return s.Scan([]byte("-5")) },
		"BSON int64": func() error {
			var s types.Snowflake
			return s.UnmarshalBSONValue(0x12, binary.LittleEndian.AppendUint64(nil, uint64(1<<64-5)))
		},
		"BSON string": func() error {
			var s types.Snowflake
			return s.UnmarshalBSONValue(0x02, append(binary.LittleEndian.AppendUint32(nil, 3), '-', '5', 0))
		},
		"Value": func() error { _, err := types.Snowflake(-5).Value(); return err },
	}
	for name, f := range checks {
		err := f()
		if !errors.Is(err, types.ErrInvalidSnowflake) || !strings.Contains(err.Error(), "negative") {
			t.Errorf("%s: err = %v; want ErrInvalidSnowflake saying negative", name, err)
		}
	}
}

// errorLimit is more than any message needs for a bounded quote.
const errorLimit = 200

func TestErrorMessagesQuoteABoundedPrefix(t *testing.T) {
	big := strings.Repeat("7", 1<<20)
	bigHex := strings.Repeat("a", 1<<20)
	checks := map[string]func() error{
		"ParseSnowflake":              func() error { _, err := types.ParseSnowflake(big); return err },
		"ParseSnowflake bad":          func() error { _, err := types.ParseSnowflake("x" + big); return err },
		"Snowflake.UnmarshalText":     func() error { var s types.Snowflake; return s.UnmarshalText([]byte(big)) },
		"Snowflake.UnmarshalJSON":     func() error { var s types.Snowflake; return s.UnmarshalJSON([]byte(big)) },
		"Snowflake.UnmarshalJSON str": func() error { var s types.Snowflake; return s.UnmarshalJSON([]byte(`"` + big + `"`)) },
		"Snowflake.UnmarshalJSON esc": func() error {
			var s types.Snowflake
			return s.UnmarshalJSON([]byte(`"\u0031` + big + `"`))
		},
		"Snowflake.Scan string":  func() error { var s types.Snowflake; return s.Scan(big) },
		"Snowflake.Scan bytes":   func() error { var s types.Snowflake; return s.Scan([]byte(big)) },
		"ParseObjectID":          func() error { _, err := types.ParseObjectID(bigHex); return err },
		"ObjectID.UnmarshalText": func() error { var id types.ObjectID; return id.UnmarshalText([]byte(bigHex)) },
		"ObjectID.UnmarshalJSON": func() error { var id types.ObjectID; return id.UnmarshalJSON([]byte(`"` + bigHex + `"`)) },
		"ObjectID.UnmarshalJSON obj": func() error {
			var id types.ObjectID
			return id.UnmarshalJSON([]byte(`{"$oid":"` + bigHex + `"}`))
		},
		"ObjectID.Scan": func() error { var id types.ObjectID; return id.Scan(bigHex) },
	}
	for name, f := range checks {
		err := f()
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if n := len(err.Error()); n > errorLimit {
			t.Errorf("%s: error message of %d bytes: %.120s...", name, n, err)
		}
	}
	// The quoted prefix is there, so the message still says what was wrong.
	_, err := types.ParseSnowflake("12x" + big)
	if !strings.Contains(err.Error(), `"12x7777`) {
		t.Errorf("message %q does not quote the input's start", err)
	}
}

// ObjectIDFromTime's doc: times outside the field's 32-bit range wrap.
func TestObjectIDFromTimeWraps(t *testing.T) {
	if got := types.ObjectIDFromTime(time.Unix(-1, 0)).Hex(); got != "ffffffff0000000000000000" {
		t.Errorf("ObjectIDFromTime(1969-12-31T23:59:59Z) = %s", got)
	}
	if got := types.ObjectIDFromTime(time.Unix(1<<32+5, 0)).Hex(); got != "000000050000000000000000" {
		t.Errorf("ObjectIDFromTime(2106 + 5s) = %s", got)
	}
}

// UnmarshalBSONValue's doc: unlike the driver, a 12-character BSON string is
// never raw bytes, and undefined is rejected.
func TestObjectIDBSONStringIsHexOnly(t *testing.T) {
	id := sentinelID
	raw := "abcdefghijkl"
	data := append(binary.LittleEndian.AppendUint32(nil, uint32(len(raw)+1)), append([]byte(raw), 0)...)
	if err := id.UnmarshalBSONValue(0x02, data); !errors.Is(err, types.ErrInvalidObjectID) || id != sentinelID {
		t.Errorf("12-character BSON string: %v, %v", id, err)
	}
	if err := id.UnmarshalBSONValue(0x06, nil); !errors.Is(err, types.ErrInvalidObjectID) || id != sentinelID {
		t.Errorf("BSON undefined: %v, %v", id, err)
	}
}

// Snowflake.MarshalBSONValue refuses a negative value, which
// UnmarshalBSONValue could not read back, and zero, which is no key.
func TestSnowflakeBSONNegative(t *testing.T) {
	if _, _, err := types.Snowflake(-1).MarshalBSONValue(); !errors.Is(err, types.ErrInvalidSnowflake) {
		t.Errorf("MarshalBSONValue(-1) err = %v", err)
	}
	if _, _, err := types.Snowflake(0).MarshalBSONValue(); !errors.Is(err, types.ErrZeroID) {
		t.Errorf("MarshalBSONValue(0) err = %v", err)
	}
	if typ, data, err := types.Snowflake(1).MarshalBSONValue(); err != nil || typ != 0x12 || len(data) != 8 {
		t.Errorf("MarshalBSONValue(1) = %#x, %x, %v", typ, data, err)
	}
}

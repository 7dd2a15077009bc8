package types_test

import (
	"bytes"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	googleuuid "github.com/google/uuid"

	"github.com/idkit-go/idkit/types"
)

const (
	uuidText  = "0190a3c2-5b7e-7def-8a12-3456789abcde"
	uuidHex32 = "0190a3c25b7e7def8a123456789abcde"
)

var (
	uuidRaw      = []byte{0x01, 0x90, 0xa3, 0xc2, 0x5b, 0x7e, 0x7d, 0xef, 0x8a, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde}
	uuidSentinel = types.MustParseUUID("f81d4fae-7dec-11d0-a765-00a0c91e6bf6") // RFC 9562's v1 example
)

func TestParseUUID(t *testing.T) {
	for _, s := range []string{uuidText, strings.ToUpper(uuidText), uuidHex32, strings.ToUpper(uuidHex32), "0190A3C2-5b7e-7DEF-8a12-3456789ABCDE"} {
		id, err := types.ParseUUID(s)
		if err != nil || !bytes.Equal(id[:], uuidRaw) {
			t.Fatalf("ParseUUID(%q) = %x, %v", s, id, err)
		}
		if id.String() != uuidText {
			t.Fatalf("String() = %s", id)
		}
	}
	for _, s := range []string{"", "0190a3c2", uuidText[:35], uuidText + "0", "0190a3c2-5b7e-7def-8a12_3456789abcde",
		"0190a3c25-b7e-7def-8a12-3456789abcde", "g190a3c2-5b7e-7def-8a12-3456789abcde", "{" + uuidText[1:35] + "}",
		"urn:uuid:" + uuidText, uuidHex32[:31] + "x", "0190a3c2-5b7e-7def-8a12-3456789abcd\u00e9"[:36], strings.Repeat("-", 36)} {
		id, err := types.ParseUUID(s)
		if !errors.Is(err, types.ErrInvalidUUID) || !id.IsZero() {
			t.Fatalf("ParseUUID(%q) = %x, %v; want zero and ErrInvalidUUID", s, id, err)
		}
	}
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("MustParseUUID did not panic")
		}
	}()
	types.MustParseUUID("nope")
}

func TestUUIDConvertsToOtherUUIDTypes(t *testing.T) {
	g := googleuuid.MustParse(uuidText)
	if types.UUID(g) != types.MustParseUUID(uuidText) || googleuuid.UUID(types.MustParseUUID(uuidText)).String() != uuidText {
		t.Fatal("conversion with google/uuid changed the value")
	}
	// Every version parses; Time is zero for all but v7.
	v4 := googleuuid.New()
	id, err := types.ParseUUID(v4.String())
	if err != nil || id != types.UUID(v4) || !id.Time().IsZero() {
		t.Fatalf("v4: %v %v %v", id, err, id.Time())
	}
	if !uuidSentinel.Time().IsZero() {
		t.Fatal("v1 UUID has a v7 time")
	}
}

func TestNewUUIDv7(t *testing.T) {
	// The coarse clock behind NewUUIDv7 may lag the wall clock while its
	// goroutine waits for a CPU; a second covers a loaded machine.
	before := time.Now().Add(-time.Second)
	prev := types.NewUUIDv7()
	for range 10000 {
		id := types.NewUUIDv7()
		if bytes.Compare(id[:], prev[:]) <= 0 {
			t.Fatalf("%s after %s", id, prev)
		}
		prev = id
	}
	after := time.Now().Add(2 * time.Millisecond)
	g := googleuuid.UUID(prev)
	if g.Version() != 7 || g.Variant() != googleuuid.RFC4122 {
		t.Fatalf("version %d variant %v", g.Version(), g.Variant())
	}
	if tm := prev.Time(); tm.Before(before) || tm.After(after) || tm.Location() != time.UTC {
		t.Fatalf("Time() = %v, want between %v and %v", tm, before, after)
	}
	sec, nsec := g.Time().UnixTime()
	if !time.Unix(sec, nsec).Equal(prev.Time()) {
		t.Fatalf("google/uuid reads time %v, Time() %v", time.Unix(sec, nsec), prev.Time())
	}
}

func TestUUIDv7FromTime(t *testing.T) {
	tm := time.Date(2024, 7, 1, 12, 0, 0, 123_456_789, time.UTC)
	lo := types.UUIDv7FromTime(tm)
	if lo.String() != "01906e2a-8a7b-7000-8000-000000000000" {
		t.Fatalf("UUIDv7FromTime = %s", lo)
	}
	if !lo.Time().Equal(tm.Truncate(time.Millisecond)) {
		t.Fatalf("Time() = %v", lo.Time())
	}
	now := types.NewUUIDv7()
	from, to := types.UUIDv7FromTime(now.Time()), types.UUIDv7FromTime(now.Time().Add(time.Millisecond))
	if bytes.Compare(from[:], now[:]) > 0 || bytes.Compare(now[:], to[:]) >= 0 {
		t.Fatalf("%s not in [%s, %s)", now, from, to)
	}
	if got := types.UUIDv7FromTime(time.Unix(-5, 0)); got.String() != "00000000-0000-7000-8000-000000000000" {
		t.Fatalf("before 1970: %s", got)
	}
	if got := types.UUIDv7FromTime(time.Date(20000, 1, 1, 0, 0, 0, 0, time.UTC)); got.String() != "ffffffff-ffff-7000-8000-000000000000" {
		t.Fatalf("after the field's end: %s", got)
	}
}

func TestUUIDText(t *testing.T) {
	id := types.MustParseUUID(uuidText)
	b, err := id.MarshalText()
	if err != nil || string(b) != uuidText {
		t.Fatalf("MarshalText = %s, %v", b, err)
	}
	got := uuidSentinel
	if err := got.UnmarshalText([]byte(uuidHex32)); err != nil || got != id {
		t.Fatalf("UnmarshalText = %v, %v", got, err)
	}
	if err := got.UnmarshalText(nil); err != nil || !got.IsZero() {
		t.Fatalf("UnmarshalText(empty) = %v, %v", got, err)
	}
	got = uuidSentinel
	if err := got.UnmarshalText([]byte("x")); !errors.Is(err, types.ErrInvalidUUID) || got != uuidSentinel {
		t.Fatalf("UnmarshalText(x) = %v, %v", got, err)
	}
}

func TestUUIDJSON(t *testing.T) {
	type doc struct {
		ID  types.UUID     `json:"id"`
		Ref types.NullUUID `json:"ref"`
		Opt types.NullUUID `json:"opt,omitzero"`
	}
	id := types.MustParseUUID(uuidText)
	b, err := json.Marshal(doc{ID: id, Ref: types.NullUUID{}})
	if err != nil || string(b) != `{"id":"`+uuidText+`","ref":null}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	b, _ = json.Marshal(doc{Ref: types.NullUUID{ID: id, Valid: true}})
	if string(b) != `{"id":"00000000-0000-0000-0000-000000000000","ref":"`+uuidText+`"}` {
		t.Fatalf("Marshal = %s", b)
	}
	for in, want := range map[string]types.UUID{
		`"` + uuidText + `"`:                          id,
		` "` + strings.ToUpper(uuidHex32) + `"`:       id,
		`"\u0030190a3c2-5b7e-7def-8a12-3456789abcde"`: id,
		"null":   {},
		` "" `:   {},
		"\tnull": {},
	} {
		got := uuidSentinel
		if err := json.Unmarshal([]byte(in), &got); err != nil || got != want {
			t.Fatalf("Unmarshal(%s) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{`1`, `"x"`, `{}`, `["` + uuidText + `"]`, `"` + uuidText[:35] + `"`, `"\x"`, `true`} {
		got := uuidSentinel
		if err := got.UnmarshalJSON([]byte(in)); !errors.Is(err, types.ErrInvalidUUID) || got != uuidSentinel {
			t.Fatalf("UnmarshalJSON(%s) = %v, %v", in, got, err)
		}
	}
	var d doc
	if err := json.Unmarshal([]byte(`{"id":"`+uuidText+`","ref":null,"opt":"`+uuidText+`"}`), &d); err != nil ||
		d.ID != id || d.Ref.Valid || !d.Opt.Valid || d.Opt.ID != id {
		t.Fatalf("Unmarshal doc = %+v, %v", d, err)
	}
	n := types.NullUUID{ID: id, Valid: true}
	if err := n.UnmarshalJSON([]byte(`""`)); err != nil || n.Valid || !n.ID.IsZero() {
		t.Fatalf(`NullUUID "" = %+v, %v`, n, err)
	}
	n = types.NullUUID{ID: id, Valid: true}
	if err := n.UnmarshalJSON([]byte(`"bad"`)); !errors.Is(err, types.ErrInvalidUUID) || !n.Valid || n.ID != id {
		t.Fatalf(`NullUUID "bad" = %+v, %v`, n, err)
	}
}

func TestUUIDBinary(t *testing.T) {
	id := types.MustParseUUID(uuidText)
	b, err := id.MarshalBinary()
	if err != nil || !bytes.Equal(b, uuidRaw) {
		t.Fatalf("MarshalBinary = %x, %v", b, err)
	}
	b[0] = 0xff // a copy
	if id[0] != 0x01 {
		t.Fatal("MarshalBinary shares id's bytes")
	}
	got := uuidSentinel
	if err := got.UnmarshalBinary(uuidRaw); err != nil || got != id {
		t.Fatalf("UnmarshalBinary = %v, %v", got, err)
	}
	if err := got.UnmarshalBinary(nil); err != nil || !got.IsZero() {
		t.Fatalf("UnmarshalBinary(empty) = %v, %v", got, err)
	}
	got = uuidSentinel
	if err := got.UnmarshalBinary(uuidRaw[:15]); !errors.Is(err, types.ErrInvalidUUID) || got != uuidSentinel {
		t.Fatalf("UnmarshalBinary(15 bytes) = %v, %v", got, err)
	}
}

func TestUUIDValueScan(t *testing.T) {
	id := types.MustParseUUID(uuidText)
	v, err := id.Value()
	if b, ok := v.([]byte); err != nil || !ok || !bytes.Equal(b, uuidRaw) || !driver.IsValue(v) {
		t.Fatalf("Value = %#v, %v", v, err)
	}
	if v, err := (types.UUID{}).Value(); !errors.Is(err, types.ErrZeroID) || v == nil {
		t.Fatalf("zero Value = %#v, %v; want ErrZeroID and a refused value", v, err)
	} else if _, err := v.(driver.Valuer).Value(); !errors.Is(err, types.ErrZeroID) {
		t.Fatalf("refused value's Value: %v", err)
	}
	for _, src := range []any{uuidRaw, uuidText, []byte(uuidText), uuidHex32, []byte(strings.ToUpper(uuidHex32)), strings.ToUpper(uuidText)} {
		got := uuidSentinel
		if err := got.Scan(src); err != nil || got != id {
			t.Fatalf("Scan(%#v) = %v, %v", src, got, err)
		}
	}
	for _, src := range []any{nil, string(uuidRaw), []byte{}, "", uuidRaw[:15], make([]byte, 36), int64(1), time.Now(), [16]byte(uuidRaw)} {
		got := uuidSentinel
		err := got.Scan(src)
		if !errors.Is(err, types.ErrInvalidUUID) || got != uuidSentinel {
			t.Fatalf("Scan(%#v) = %v, %v", src, got, err)
		}
		if errors.Is(err, types.ErrNull) != (src == nil) {
			t.Fatalf("Scan(%#v): ErrNull %v", src, err)
		}
	}
	zero := types.UUID{}
	if err := zero.Scan(make([]byte, 16)); err != nil || !zero.IsZero() {
		t.Fatalf("Scan(16 zero bytes) = %v, %v", zero, err)
	}

	var n types.NullUUID
	if v, err := n.Value(); v != nil || err != nil {
		t.Fatalf("invalid NullUUID Value = %v, %v", v, err)
	}
	if v, err := (types.NullUUID{Valid: true}).Value(); !errors.Is(err, types.ErrZeroID) || v == nil {
		t.Fatalf("valid zero NullUUID Value = %v, %v", v, err)
	}
	if v, err := (types.NullUUID{ID: id, Valid: true}).Value(); err != nil || !bytes.Equal(v.([]byte), uuidRaw) {
		t.Fatalf("NullUUID Value = %v, %v", v, err)
	}
	if err := n.Scan([]byte(uuidText)); err != nil || !n.Valid || n.ID != id {
		t.Fatalf("NullUUID Scan = %+v, %v", n, err)
	}
	if err := n.Scan("bad"); !errors.Is(err, types.ErrInvalidUUID) || !n.Valid || n.ID != id {
		t.Fatalf("NullUUID Scan(bad) = %+v, %v", n, err)
	}
	if err := n.Scan(nil); err != nil || n.Valid || !n.ID.IsZero() {
		t.Fatalf("NullUUID Scan(nil) = %+v, %v", n, err)
	}
}

func TestUUIDBSONValue(t *testing.T) {
	id := types.MustParseUUID(uuidText)
	typ, data, err := id.MarshalBSONValue()
	want := append([]byte{16, 0, 0, 0, 4}, uuidRaw...)
	if err != nil || typ != 0x05 || !bytes.Equal(data, want) {
		t.Fatalf("MarshalBSONValue = %#x %x, %v", typ, data, err)
	}
	if _, _, err := (types.UUID{}).MarshalBSONValue(); !errors.Is(err, types.ErrZeroID) {
		t.Fatalf("zero MarshalBSONValue: %v", err)
	}
	str := func(s string) []byte {
		return append(append([]byte{byte(len(s) + 1), 0, 0, 0}, s...), 0)
	}
	for _, c := range []struct {
		typ  byte
		data []byte
		want types.UUID
	}{{0x05, want, id}, {0x02, str(uuidText), id}, {0x02, str(uuidHex32), id}, {0x0A, nil, types.UUID{}}} {
		got := uuidSentinel
		if err := got.UnmarshalBSONValue(c.typ, c.data); err != nil || got != c.want {
			t.Fatalf("UnmarshalBSONValue(%#x, %x) = %v, %v", c.typ, c.data, got, err)
		}
	}
	sub3 := append([]byte{16, 0, 0, 0, 3}, uuidRaw...)
	sub0 := append([]byte{16, 0, 0, 0, 0}, uuidRaw...)
	short := append([]byte{15, 0, 0, 0, 4}, uuidRaw[:15]...)
	badLen := append([]byte{17, 0, 0, 0, 4}, uuidRaw...)
	for _, c := range []struct {
		typ  byte
		data []byte
	}{{0x05, sub3}, {0x05, sub0}, {0x05, short}, {0x05, badLen}, {0x05, nil}, {0x02, str("x")}, {0x02, []byte{1}}, {0x07, uuidRaw[:12]}, {0x06, nil}, {0x12, make([]byte, 8)}} {
		got := uuidSentinel
		if err := got.UnmarshalBSONValue(c.typ, c.data); !errors.Is(err, types.ErrInvalidUUID) || got != uuidSentinel {
			t.Fatalf("UnmarshalBSONValue(%#x, %x) = %v, %v", c.typ, c.data, got, err)
		}
	}
	if typ, data, err := (types.NullUUID{}).MarshalBSONValue(); typ != 0x0A || data != nil || err != nil {
		t.Fatalf("invalid NullUUID MarshalBSONValue = %#x %x %v", typ, data, err)
	}
	if typ, data, err := (types.NullUUID{ID: id, Valid: true}).MarshalBSONValue(); typ != 0x05 || !bytes.Equal(data, want) || err != nil {
		t.Fatalf("NullUUID MarshalBSONValue = %#x %x %v", typ, data, err)
	}
	n := types.NullUUID{ID: id, Valid: true}
	if err := n.UnmarshalBSONValue(0x0A, nil); err != nil || n.Valid {
		t.Fatalf("NullUUID UnmarshalBSONValue(null) = %+v, %v", n, err)
	}
	if err := n.UnmarshalBSONValue(0x05, want); err != nil || !n.Valid || n.ID != id {
		t.Fatalf("NullUUID UnmarshalBSONValue = %+v, %v", n, err)
	}
}

func TestUUIDGQL(t *testing.T) {
	id := types.MustParseUUID(uuidText)
	var buf bytes.Buffer
	id.MarshalGQL(&buf)
	(types.NullUUID{}).MarshalGQL(&buf)
	(types.NullUUID{ID: id, Valid: true}).MarshalGQL(&buf)
	if buf.String() != `"`+uuidText+`"null"`+uuidText+`"` {
		t.Fatalf("MarshalGQL = %s", buf.String())
	}
	got := uuidSentinel
	if err := got.UnmarshalGQL(uuidHex32); err != nil || got != id {
		t.Fatalf("UnmarshalGQL = %v, %v", got, err)
	}
	if err := got.UnmarshalGQL(nil); err != nil || !got.IsZero() {
		t.Fatalf("UnmarshalGQL(nil) = %v, %v", got, err)
	}
	for _, v := range []any{"", "x", 5, json.Number("1"), true} {
		got := uuidSentinel
		if err := got.UnmarshalGQL(v); !errors.Is(err, types.ErrInvalidUUID) || got != uuidSentinel {
			t.Fatalf("UnmarshalGQL(%#v) = %v, %v", v, got, err)
		}
	}
	n := types.NullUUID{ID: id, Valid: true}
	if err := n.UnmarshalGQL(""); err != nil || n.Valid {
		t.Fatalf(`NullUUID UnmarshalGQL("") = %+v, %v`, n, err)
	}
	if err := n.UnmarshalGQL(uuidText); err != nil || !n.Valid || n.ID != id {
		t.Fatalf("NullUUID UnmarshalGQL = %+v, %v", n, err)
	}
}

func TestUUIDNoAllocs(t *testing.T) {
	id := types.MustParseUUID(uuidText)
	var src any = []byte(uuidText)
	if n := testing.AllocsPerRun(100, func() { _ = id.Scan(src) }); n != 0 {
		t.Fatalf("Scan of text allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = types.NewUUIDv7() }); n != 0 {
		t.Fatalf("NewUUIDv7 allocates %v times", n)
	}
}

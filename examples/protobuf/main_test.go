package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^encoded 60 bytes: [0-9a-f]{120}\nid=[0-9a-f]{24} author_id=1541815603606036480 refs=\[[0-9a-f]{24} [0-9a-f]{24}\] name=signup\n$`)
	if !want.MatchString(out.String()) {
		t.Errorf("output:\n%s", out.String())
	}
}

var (
	oidA = mustHex("632c6d93d65f74baeb22a2c9")
	oidB = mustHex("00000000000000000000ff01")
)

func mustHex(s string) types.ObjectID {
	id, err := types.ParseObjectID(s)
	if err != nil {
		panic(err)
	}
	return id
}

// The bytes on the wire are the documented binary forms: an ObjectID's 12
// bytes and a Snowflake's 8 bytes big-endian, as length-delimited fields.
func TestWireFormat(t *testing.T) {
	b, err := Marshal(Event{ID: oidA, AuthorID: 0x0102030405060708, Refs: []types.ObjectID{oidB, oidA}, Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	type fieldBytes struct {
		num protowire.Number
		val []byte
	}
	var got []fieldBytes
	for rest := b; len(rest) > 0; {
		num, typ, n := protowire.ConsumeTag(rest)
		if n < 0 || typ != protowire.BytesType {
			t.Fatalf("tag at %x: %d %v", rest, n, typ)
		}
		rest = rest[n:]
		v, n := protowire.ConsumeBytes(rest)
		if n < 0 {
			t.Fatalf("bytes at %x", rest)
		}
		rest = rest[n:]
		got = append(got, fieldBytes{num, v})
	}
	want := []fieldBytes{
		{1, oidA[:]},
		{2, []byte{1, 2, 3, 4, 5, 6, 7, 8}},
		{3, oidB[:]},
		{3, oidA[:]},
		{4, []byte("x")},
	}
	if !slices.EqualFunc(got, want, func(a, b fieldBytes) bool { return a.num == b.num && bytes.Equal(a.val, b.val) }) {
		t.Errorf("fields\n got %x\nwant %x", got, want)
	}
}

func randomEvent(r *rand.Rand) Event {
	var e Event
	for i := range e.ID {
		e.ID[i] = byte(r.Uint32())
	}
	e.AuthorID = types.Snowflake(r.Int64() >> r.UintN(64))
	for range r.IntN(3) {
		var id types.ObjectID
		for i := range id {
			id[i] = byte(r.Uint32())
		}
		e.Refs = append(e.Refs, id)
	}
	e.Name = strings.Repeat("n", r.IntN(3))
	return e
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	events := []Event{
		{}, // zero IDs: 12 and 8 zero bytes, still present on the wire
		{ID: oidA, AuthorID: math.MaxInt64, Refs: []types.ObjectID{oidB}},
		{ID: types.NewObjectID(), AuthorID: 1},
	}
	for range 500 {
		events = append(events, randomEvent(r))
	}
	for _, in := range events {
		b, err := Marshal(in)
		if err != nil {
			t.Fatalf("%+v: %v", in, err)
		}
		out, err := Unmarshal(b)
		if err != nil {
			t.Fatalf("%+v: %v", in, err)
		}
		if out.ID != in.ID || out.AuthorID != in.AuthorID || !slices.Equal(out.Refs, in.Refs) || out.Name != in.Name {
			t.Fatalf("round trip\n got %+v\nwant %+v", out, in)
		}
	}
}

// A message with the ID fields unset (an older sender, or an empty
// message) reads as zero IDs.
func TestUnsetFields(t *testing.T) {
	b, err := proto.Marshal(dynamicpb.NewMessage(eventType))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !e.ID.IsZero() || !e.AuthorID.IsZero() || e.Refs != nil {
		t.Errorf("unset fields read as %+v", e)
	}
}

// The well-known wrapper google.protobuf.BytesValue carries an ID the same
// way, and the binary forms build a prefixed cache key.
func TestBytesValue(t *testing.T) {
	sf := types.Snowflake(1541815603606036480)
	sfb, err := sf.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	key := append(append(append([]byte("user:"), sfb...), ':'), oidA[:]...)
	b, err := proto.Marshal(wrapperspb.Bytes(key))
	if err != nil {
		t.Fatal(err)
	}
	var w wrapperspb.BytesValue
	if err := proto.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	v := w.GetValue()
	prefix, rest, ok := bytes.Cut(v, []byte(":"))
	if !ok || string(prefix) != "user" || len(rest) != 8+1+12 {
		t.Fatalf("value %x", v)
	}
	var gotSF types.Snowflake
	var gotOID types.ObjectID
	if err := gotSF.UnmarshalBinary(rest[:8]); err != nil {
		t.Fatal(err)
	}
	if err := gotOID.UnmarshalBinary(rest[9:]); err != nil {
		t.Fatal(err)
	}
	if gotSF != sf || gotOID != oidA {
		t.Errorf("got %v %v", gotSF, gotOID)
	}
}

// Byte order of the binary forms is ID order: for ObjectIDs always, for
// Snowflakes as they are (never negative). The order survives protobuf: the
// decoded bytes compare the same, and so do whole BytesValue messages,
// whose encoding is a fixed two-byte prefix and the value.
func TestSortOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g, err := generator.NewObjectID()
	if err != nil {
		t.Fatal(err)
	}
	oids := []types.ObjectID{{}, oidA, oidB, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}
	for range 300 {
		oids = append(oids, g.Next(), randomEvent(r).ID)
	}
	sfs := []types.Snowflake{0, 1, 0xff, 0x100, 1 << 32, 1<<56 - 1, 1 << 56, math.MaxInt64}
	for range 600 {
		sfs = append(sfs, types.Snowflake(r.Int64()>>r.UintN(63)))
	}
	checkOrder(t, "ObjectID", oids, types.ObjectID.Compare, func(id types.ObjectID) ([]byte, error) { return id.MarshalBinary() })
	checkOrder(t, "Snowflake", sfs, types.Snowflake.Compare, func(s types.Snowflake) ([]byte, error) { return s.MarshalBinary() })
}

func checkOrder[T any](t *testing.T, name string, ids []T, compare func(T, T) int, enc func(T) ([]byte, error)) {
	t.Helper()
	type pair struct {
		id       T
		raw, msg []byte // binary form after a protobuf round trip; BytesValue encoding
	}
	ps := make([]pair, len(ids))
	for i, id := range ids {
		b, err := enc(id)
		if err != nil {
			t.Fatalf("%s %v: %v", name, id, err)
		}
		msg, err := proto.MarshalOptions{Deterministic: true}.Marshal(wrapperspb.Bytes(b))
		if err != nil {
			t.Fatal(err)
		}
		var w wrapperspb.BytesValue
		if err := proto.Unmarshal(msg, &w); err != nil {
			t.Fatal(err)
		}
		ps[i] = pair{id, w.GetValue(), msg}
	}
	slices.SortFunc(ps, func(a, b pair) int { return compare(a.id, b.id) })
	for i := 1; i < len(ps); i++ {
		a, b := ps[i-1], ps[i]
		c := compare(a.id, b.id)
		if got := bytes.Compare(a.raw, b.raw); got != c {
			t.Errorf("%s: compare(%v, %v) = %d, bytes %x vs %x compare %d", name, a.id, b.id, c, a.raw, b.raw, got)
		}
		if got := bytes.Compare(a.msg, b.msg); got != c {
			t.Errorf("%s: compare(%v, %v) = %d, messages %x vs %x compare %d", name, a.id, b.id, c, a.msg, b.msg, got)
		}
	}
}

// withBytes encodes an Event whose field name holds raw bytes v.
func withBytes(t *testing.T, name protoreflect.Name, v []byte) []byte {
	t.Helper()
	m := dynamicpb.NewMessage(eventType)
	fd := field(name)
	if fd.IsList() {
		m.Mutable(fd).List().Append(protoreflect.ValueOfBytes(v))
	} else {
		m.Set(fd, protoreflect.ValueOfBytes(v))
	}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Bytes of the wrong length, and a Snowflake with the sign bit set, give
// errors wrapping the type's sentinel; the target is left unchanged.
func TestBadBytes(t *testing.T) {
	negative := binary.BigEndian.AppendUint64(nil, 1<<63|5)
	for _, c := range []struct {
		field    protoreflect.Name
		val      []byte
		sentinel error
	}{
		{"id", make([]byte, 1), types.ErrInvalidObjectID},
		{"id", make([]byte, 11), types.ErrInvalidObjectID},
		{"id", make([]byte, 13), types.ErrInvalidObjectID},
		{"id", []byte("632c6d93d65f74baeb22a2c9"), types.ErrInvalidObjectID}, // hex text is not the binary form
		{"refs", make([]byte, 8), types.ErrInvalidObjectID},
		{"author_id", make([]byte, 1), types.ErrInvalidSnowflake},
		{"author_id", make([]byte, 7), types.ErrInvalidSnowflake},
		{"author_id", make([]byte, 9), types.ErrInvalidSnowflake},
		{"author_id", make([]byte, 12), types.ErrInvalidSnowflake},
		{"author_id", negative, types.ErrInvalidSnowflake},
	} {
		b := withBytes(t, c.field, c.val)
		if _, err := Unmarshal(b); !errors.Is(err, c.sentinel) {
			t.Errorf("%s of %d bytes: err %v, want %v", c.field, len(c.val), err, c.sentinel)
		}
		// UnmarshalBinary on the decoded field leaves its target as it was.
		m := dynamicpb.NewMessage(eventType)
		if err := proto.Unmarshal(b, m); err != nil {
			t.Fatal(err)
		}
		v := m.Get(field(c.field))
		var raw []byte
		if field(c.field).IsList() {
			raw = v.List().Get(0).Bytes()
		} else {
			raw = v.Bytes()
		}
		oid, sf := oidA, types.Snowflake(42)
		var err error
		if c.sentinel == types.ErrInvalidObjectID {
			err = oid.UnmarshalBinary(raw)
		} else {
			err = sf.UnmarshalBinary(raw)
		}
		if !errors.Is(err, c.sentinel) || oid != oidA || sf != 42 {
			t.Errorf("%s of %d bytes: err %v, target changed to %v / %v", c.field, len(c.val), err, oid, sf)
		}
	}

	// A negative Snowflake is refused when writing.
	if _, err := Marshal(Event{AuthorID: -1}); !errors.Is(err, types.ErrInvalidSnowflake) {
		t.Errorf("Marshal of a negative Snowflake: %v", err)
	}
	if got, err := types.Snowflake(-1).MarshalBinary(); !errors.Is(err, types.ErrInvalidSnowflake) || got != nil {
		t.Errorf("MarshalBinary(-1) = %q, %v", got, err)
	}
}

// FuzzRoundTrip: every event with a non-negative author survives
// Marshal and Unmarshal; a negative one is refused with the sentinel.
func FuzzRoundTrip(f *testing.F) {
	f.Add(oidA[:], int64(1541815603606036480), oidB[:], "signup")
	f.Add(make([]byte, 12), int64(0), []byte{}, "")
	f.Add(make([]byte, 12), int64(-1), []byte{}, "")
	f.Fuzz(func(t *testing.T, id []byte, author int64, ref []byte, name string) {
		if len(id) != 12 || (len(ref) != 12 && len(ref) != 0) {
			t.Skip()
		}
		in := Event{ID: types.ObjectID(id), AuthorID: types.Snowflake(author), Name: strings.ToValidUTF8(name, "?")}
		if len(ref) == 12 {
			in.Refs = []types.ObjectID{types.ObjectID(ref)}
		}
		b, err := Marshal(in)
		if author < 0 {
			if !errors.Is(err, types.ErrInvalidSnowflake) {
				t.Fatalf("Marshal(%d): %v", author, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		out, err := Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if out.ID != in.ID || out.AuthorID != in.AuthorID || !slices.Equal(out.Refs, in.Refs) || out.Name != in.Name {
			t.Fatalf("round trip\n got %+v\nwant %+v", out, in)
		}
	})
}

// FuzzUnmarshal: any input gives an Event or an error, never a panic; an
// Event read from the wire is written back to the same fields.
func FuzzUnmarshal(f *testing.F) {
	good, _ := Marshal(Event{ID: oidA, AuthorID: 7, Refs: []types.ObjectID{oidB}, Name: "n"})
	f.Add(good)
	f.Add([]byte{0x0a, 0x03, 1, 2, 3})
	f.Add([]byte{0x12, 0x08, 0x80, 0, 0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Unmarshal(b)
		if err != nil {
			return
		}
		b2, err := Marshal(e)
		if err != nil {
			t.Fatalf("%+v read from %x does not marshal: %v", e, b, err)
		}
		e2, err := Unmarshal(b2)
		if err != nil || e2.ID != e.ID || e2.AuthorID != e.AuthorID || !slices.Equal(e2.Refs, e.Refs) || e2.Name != e.Name {
			t.Fatalf("%+v read back as %+v, %v", e, e2, err)
		}
	})
}

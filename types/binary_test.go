package types_test

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/types"
)

func TestObjectIDBinary(t *testing.T) {
	id := types.MustParseObjectID(seedHex)
	b, err := id.MarshalBinary()
	if err != nil || !bytes.Equal(b, id[:]) {
		t.Fatalf("MarshalBinary = %x, %v", b, err)
	}
	b[0] ^= 0xff
	if id.Hex() != seedHex {
		t.Fatal("MarshalBinary returned memory shared with the ID")
	}
	var back types.ObjectID
	if err := back.UnmarshalBinary(id[:]); err != nil || back != id {
		t.Fatalf("UnmarshalBinary = %v, %v", back, err)
	}
	if err := back.UnmarshalBinary(nil); err != nil || !back.IsZero() {
		t.Fatalf("UnmarshalBinary(empty) = %v, %v; want the nil ID", back, err)
	}
	back = id
	for _, n := range []int{1, 11, 13, 24} {
		if err := back.UnmarshalBinary(make([]byte, n)); !errors.Is(err, types.ErrInvalidObjectID) || back != id {
			t.Errorf("UnmarshalBinary(%d bytes) = %v, %v", n, back, err)
		}
	}
}

func TestSnowflakeBinary(t *testing.T) {
	s := types.Snowflake(1541815603606036480)
	b, err := s.MarshalBinary()
	if err != nil || !bytes.Equal(b, []byte{0x15, 0x65, 0xa1, 0x1f, 0x62, 0x17, 0xa0, 0x00}) {
		t.Fatalf("MarshalBinary = %x, %v", b, err)
	}
	var back types.Snowflake
	if err := back.UnmarshalBinary(b); err != nil || back != s {
		t.Fatalf("UnmarshalBinary = %d, %v", back, err)
	}
	if err := back.UnmarshalBinary(nil); err != nil || back != 0 {
		t.Fatalf("UnmarshalBinary(empty) = %d, %v", back, err)
	}
	if b, err := types.Snowflake(math.MaxInt64).MarshalBinary(); err != nil || !bytes.Equal(b, []byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) {
		t.Fatalf("MarshalBinary(max) = %x, %v", b, err)
	}
	if b, err := types.Snowflake(-1).MarshalBinary(); !errors.Is(err, types.ErrInvalidSnowflake) || b != nil || !strings.Contains(err.Error(), "negative") {
		t.Fatalf("MarshalBinary(-1) = %x, %v", b, err)
	}
	back = 77
	for _, in := range [][]byte{{1}, make([]byte, 7), make([]byte, 9), {0x80, 0, 0, 0, 0, 0, 0, 1}} {
		if err := back.UnmarshalBinary(in); !errors.Is(err, types.ErrInvalidSnowflake) || back != 77 {
			t.Errorf("UnmarshalBinary(%x) = %d, %v", in, back, err)
		}
	}
}

func marshalText(t *testing.T, v encoding.TextMarshaler) string {
	t.Helper()
	b, err := v.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func marshalBinary(t *testing.T, v encoding.BinaryMarshaler) []byte {
	t.Helper()
	b, err := v.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The package documentation says which encodings keep the IDs' sort order:
// lower-case hex and the binary forms do; decimal text only at equal length;
// standard base64 does not.
func TestEncodingsThatKeepSortOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		var a, b types.ObjectID
		for i := range a {
			a[i], b[i] = byte(r.Uint32()), byte(r.Uint32())
		}
		if r.IntN(2) == 0 {
			copy(b[:r.IntN(12)], a[:]) // share a prefix
		}
		want := a.Compare(b)
		if got := strings.Compare(marshalText(t, a), marshalText(t, b)); got != want {
			t.Fatalf("hex order of %v, %v = %d, want %d", a, b, got, want)
		}
		if got := bytes.Compare(marshalBinary(t, a), marshalBinary(t, b)); got != want {
			t.Fatalf("binary order of %v, %v = %d, want %d", a, b, got, want)
		}

		x, y := types.Snowflake(r.Int64()>>r.IntN(63)), types.Snowflake(r.Int64()>>r.IntN(63))
		want = x.Compare(y)
		if got := bytes.Compare(marshalBinary(t, x), marshalBinary(t, y)); got != want {
			t.Fatalf("binary order of %d, %d = %d, want %d", x, y, got, want)
		}
		if tx, ty := marshalText(t, x), marshalText(t, y); len(tx) == len(ty) && strings.Compare(tx, ty) != want {
			t.Fatalf("decimal order of %d, %d at equal length broken", x, y)
		}
	}
	if strings.Compare(marshalText(t, types.Snowflake(9)), marshalText(t, types.Snowflake(10))) < 0 {
		t.Fatal("decimal text of 9 and 10 sorts in value order; the doc says it does not")
	}
	lo := types.MustParseObjectID("000000000000000000000000")
	hi := types.MustParseObjectID("ffffffffffffffffffffffff")
	if base64.StdEncoding.EncodeToString(lo[:]) < base64.StdEncoding.EncodeToString(hi[:]) {
		t.Fatal("standard base64 kept the order of these IDs; the doc says it does not")
	}
}

func FuzzObjectIDUnmarshalBinary(f *testing.F) {
	f.Add([]byte(nil))
	f.Add(bytes.Repeat([]byte{0xff}, 12))
	f.Add([]byte(seedHex))
	f.Fuzz(func(t *testing.T, in []byte) {
		id := sentinelID
		err := id.UnmarshalBinary(in)
		checkObjectID(t, "UnmarshalBinary", in, id, err)
		if err != nil {
			return
		}
		out, merr := id.MarshalBinary()
		if merr != nil || (len(in) > 0 && !bytes.Equal(out, in)) {
			t.Fatalf("MarshalBinary(%v) = %x, %v; want the input %x", id, out, merr, in)
		}
		var back types.ObjectID
		if back.UnmarshalBinary(out) != nil || back != id {
			t.Fatalf("binary round trip of %v failed", id)
		}
	})
}

func FuzzSnowflakeUnmarshalBinary(f *testing.F) {
	f.Add([]byte(nil))
	f.Add([]byte{0x15, 0x65, 0xa1, 0x1f, 0x62, 0x17, 0xa0, 0x00})
	f.Add([]byte{0x80, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, in []byte) {
		s := types.Snowflake(77)
		err := s.UnmarshalBinary(in)
		checkSnowflake(t, "UnmarshalBinary", in, s, err)
		if err != nil {
			return
		}
		out, merr := s.MarshalBinary()
		if merr != nil || (len(in) > 0 && !bytes.Equal(out, in)) {
			t.Fatalf("MarshalBinary(%d) = %x, %v; want the input %x", s, out, merr, in)
		}
	})
}

package publicid_test

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/publicid"
	"github.com/idkit-go/idkit/types"
)

// checkDecode checks what Decode did with s: an error wrapping ErrInvalid
// and one of its documented reasons, with the zero ID, or an ID valid for
// its type (its Value takes it) that encodes back to s exactly.
func checkDecode[T interface {
	types.Snowflake | types.ObjectID | types.UUID
}](t *testing.T, s string, id T, err error, encode func(T) (string, error)) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, publicid.ErrInvalid) || id != *new(T) || !hasReason(err) {
			t.Fatalf("Decode(%q) = %v, %v: want the zero ID and ErrInvalid with a documented reason", s, id, err)
		}
		return
	}
	if verr := valueErr(id); verr != nil {
		t.Fatalf("Decode(%q) = %v, which Value refuses: %v", s, id, verr)
	}
	if back, err := encode(id); err != nil || back != s {
		t.Fatalf("Decode(%q) = %v, which encodes to %q, %v", s, id, back, err)
	}
}

// hasReason reports whether a decoding error wraps one of the documented
// reasons.
func hasReason(err error) bool {
	for _, r := range []error{publicid.ErrWrongPrefix, publicid.ErrLength, publicid.ErrAlphabet, publicid.ErrNonCanonical, publicid.ErrUnknownKey} {
		if errors.Is(err, r) {
			return true
		}
	}
	return false
}

func addSeeds[T interface {
	types.Snowflake | types.ObjectID | types.UUID
}](f *testing.F, c *publicid.Codec[T], ids ...T) {
	for _, id := range ids {
		s := mustEncode(f, c, id)
		f.Add(s)
		f.Add(s[:len(s)-1])
		f.Add(s + "0")
		f.Add("x" + s)
	}
	f.Add("")
	f.Add("user_")
}

func FuzzDecodeSnowflake(f *testing.F) {
	c := mustNew[types.Snowflake](f, "user", key1)
	addSeeds(f, c, 1, 1541815603606036480, math.MaxInt64)
	f.Add("user_1" + strings.Repeat("0", 13)) // decrypts to a negative Snowflake
	f.Fuzz(func(t *testing.T, s string) {
		id, err := c.Decode(s)
		checkDecode(t, s, id, err, c.Encode)
	})
}

func FuzzDecodeObjectID(f *testing.F) {
	c := mustNew[types.ObjectID](f, "order", key1)
	addSeeds(f, c, types.ObjectID{11: 1}, types.MustParseObjectID("632c6d93d65f74baeb22a2c9"))
	f.Fuzz(func(t *testing.T, s string) {
		id, err := c.Decode(s)
		checkDecode(t, s, id, err, c.Encode)
	})
}

func FuzzDecodeUUID(f *testing.F) {
	c := mustNew[types.UUID](f, "", key1)
	addSeeds(f, c, types.UUID{15: 1}, types.MustParseUUID("0190a3c2-5b7e-7def-8a12-3456789abcde"))
	f.Fuzz(func(t *testing.T, s string) {
		id, err := c.Decode(s)
		checkDecode(t, s, id, err, c.Encode)
	})
}

// FuzzDecodeTypeID checks that DecodeTypeID never panics, and that
// whatever it decodes with a ring of keys 1 and 2 encodes back to the same
// text with the key the TypeID's first digit names.
func FuzzDecodeTypeID(f *testing.F) {
	c := mustNew[types.UUID](f, "user", key1+","+key2)
	by := map[byte]*publicid.Codec[types.UUID]{'1': c, '2': mustNew[types.UUID](f, "user", key2+","+key1)}
	for _, s := range []string{"user_01h455vb4pex5vsknk084sn02q", "user_11h455vb4pex5vsknk084sn02q", "user_2zzzzzzzzzzzzzzzzzzzzzzzzz",
		"user_7zzzzzzzzzzzzzzzzzzzzzzzzz", "user_8zzzzzzzzzzzzzzzzzzzzzzzzz", "01h455vb4pex5vsknk084sn02q", ""} {
		f.Add(s)
	}
	for _, k := range by {
		f.Add(mustTypeID(f, k, types.MustParseUUID("0190a3c2-5b7e-7def-8a12-3456789abcde")))
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := publicid.DecodeTypeID(c, s)
		encode := func(id types.UUID) (string, error) {
			return publicid.EncodeTypeID(by[s[len("user_")]], id) // a decoded s has the prefix and a key digit
		}
		checkDecode(t, s, id, err, encode)
	})
}

// FuzzRoundTrip checks Decode(Encode(id)) == id for IDs of every kind made
// from the fuzzer's bytes.
func FuzzRoundTrip(f *testing.F) {
	sc := mustNew[types.Snowflake](f, "user", key2+" "+key1)
	oc := mustNew[types.ObjectID](f, "", key1)
	uc := mustNew[types.UUID](f, "a_b", key1)
	f.Add(make([]byte, 16))
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var buf [16]byte
		copy(buf[:], b)
		sf := types.Snowflake(binary.BigEndian.Uint64(buf[:8]))
		checkRoundTrip(t, sc, sf)
		oid := types.ObjectID(buf[:12])
		checkRoundTrip(t, oc, oid)
		u := types.UUID(buf)
		checkRoundTrip(t, uc, u)
		tid, err := publicid.EncodeTypeID(uc, u)
		if !hasTypeIDForm(u) {
			if !errors.Is(err, publicid.ErrUnsupportedUUID) {
				t.Fatalf("UUID %v as a TypeID: %q, %v; want ErrUnsupportedUUID", u, tid, err)
			}
			// The same bits with the version and variant set have the form.
			u[6], u[8] = (1+u[6]>>4%8)<<4|u[6]&0x0f, 0x80|u[8]&0x3f
			if tid, err = publicid.EncodeTypeID(uc, u); err != nil {
				t.Fatalf("UUID %v as a TypeID: %v", u, err)
			}
		}
		if got, err := publicid.DecodeTypeID(uc, tid); err != nil || got != u {
			t.Fatalf("UUID %v as a TypeID %q: %v, %v", u, tid, got, err)
		}
	})
}

// checkRoundTrip checks that a valid id decodes back from its public ID,
// and that Encode refuses an invalid one (zero, a negative Snowflake) with
// the sentinel its Value returns.
func checkRoundTrip[T interface {
	types.Snowflake | types.ObjectID | types.UUID
}](t *testing.T, c *publicid.Codec[T], id T) {
	t.Helper()
	s, err := c.Encode(id)
	if verr := valueErr(id); verr != nil {
		if s != "" || err == nil || !errors.Is(err, types.ErrZeroID) && !errors.Is(err, types.ErrInvalidSnowflake) {
			t.Fatalf("Encode(%v) = %q, %v; want the error of %v", id, s, err, verr)
		}
		return
	}
	if err != nil {
		t.Fatalf("Encode(%v): %v", id, err)
	}
	if got, err := c.Decode(s); err != nil || got != id {
		t.Fatalf("%v: %v, %v", id, got, err)
	}
}

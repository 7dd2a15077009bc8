package types

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/idkit-go/idkit/internal/objectidgen"
)

const hexDigits = "0123456789abcdef" // for bsonTypeName

// notHex marks a byte that is not a hex digit in hexValue. It stays above
// the 16 bits of a four-digit group after the group's shifts.
const notHex = 1 << 20

// hexValue maps a byte to its hex digit value, or notHex. Its entries are
// 64 bits wide so that a group of four digits is decoded with no narrowing
// and a bad digit still shows in the group's value.
var hexValue = func() (t [256]uint64) {
	for i := range t {
		t[i] = notHex
	}
	for i := range uint64(10) {
		t['0'+i] = i
	}
	for i := range uint64(6) {
		t['a'+i] = 10 + i
		t['A'+i] = 10 + i
	}
	return t
}()

// ParseObjectID parses the 24-digit hex form of an ObjectID, as the MongoDB
// drivers' ObjectIDFromHex does. Upper- and lower-case digits are
// accepted. Any other input returns the zero ID and an error wrapping
// [ErrInvalidObjectID].
func ParseObjectID(s string) (ObjectID, error) {
	var id ObjectID
	if err := decodeHex(&id, s); err != nil {
		return ObjectID{}, err
	}
	return id, nil
}

// MustParseObjectID is like [ParseObjectID] but panics on bad input. It is
// meant for constants in tests and examples.
func MustParseObjectID(s string) ObjectID {
	id, err := ParseObjectID(s)
	if err != nil {
		panic(err)
	}
	return id
}

// decodeHex decodes 24 hex digits into id, leaving id unchanged on error.
// The digits are decoded in six independent groups of four, checked once
// (a bad digit sets bits above a group's 16), and the ID is written with
// two wide stores: building it byte by byte and copying it out stalls the
// copy's loads on the byte stores.
func decodeHex(id *ObjectID, s string) error {
	if len(s) != 24 {
		return errHexLength(s)
	}
	t := &hexValue
	g0, g1, g2 := hexGroup(t, s[0:4]), hexGroup(t, s[4:8]), hexGroup(t, s[8:12])
	g3, g4, g5 := hexGroup(t, s[12:16]), hexGroup(t, s[16:20]), hexGroup(t, s[20:24])
	if g0|g1|g2|g3|g4|g5 > 0xffff {
		return errNotHex(s)
	}
	binary.BigEndian.PutUint64(id[0:8], g0<<48|g1<<32|g2<<16|g3)
	binary.BigEndian.PutUint32(id[8:12], uint32(g4<<16|g5))
	return nil
}

// hexGroup decodes four hex digits into 16 bits; the result is above 0xffff
// if any of them is not a hex digit.
func hexGroup(t *[256]uint64, s string) uint64 {
	_ = s[3]
	return t[s[0]]<<12 | t[s[1]]<<8 | t[s[2]]<<4 | t[s[3]]
}

// errHexLength and errNotHex build decodeHex's errors out of line, which
// keeps fmt's stack frame off its fast path.
//
//go:noinline
func errHexLength(s string) error {
	return fmt.Errorf("%w: %s has %d characters, want 24 hex digits", ErrInvalidObjectID, quoteInput(s), len(s))
}

//go:noinline
func errNotHex(s string) error {
	return fmt.Errorf("%w: %s is not hex", ErrInvalidObjectID, quoteInput(s))
}

// decodeHexBytes is decodeHex for a byte slice, read in place.
func decodeHexBytes(id *ObjectID, b []byte) error {
	if len(b) == 0 {
		return decodeHex(id, "")
	}
	return decodeHex(id, unsafe.String(&b[0], len(b))) // decodeHex does not retain s
}

// encodeHex writes the 24 lower-case hex digits of id into dst.
func encodeHex(dst []byte, id *ObjectID) { objectidgen.EncodeHex(dst, (*[12]byte)(id)) }

// Hex returns the 24-digit lower-case hex form of id.
func (id ObjectID) Hex() string {
	buf := make([]byte, 24)
	encodeHex(buf, &id)
	return unsafe.String(&buf[0], len(buf)) // buf is never written again
}

// String returns the 24-digit lower-case hex form of id, like [ObjectID.Hex].
func (id ObjectID) String() string { return id.Hex() }

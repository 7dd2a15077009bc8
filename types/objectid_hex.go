package types

import (
	"encoding/binary"
	"fmt"
	"unsafe"
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
// accepted. Any other input returns [NilObjectID] and an error wrapping
// [ErrInvalidObjectID].
func ParseObjectID(s string) (ObjectID, error) {
	var id ObjectID
	if err := decodeHex(&id, s); err != nil {
		return NilObjectID, err
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

// encodeHex writes the 24 lower-case hex digits of id into dst, eight
// digits at a time (see hex8).
func encodeHex(dst []byte, id *ObjectID) {
	_ = dst[23]
	binary.BigEndian.PutUint64(dst[0:8], hex8(binary.BigEndian.Uint32(id[0:4])))
	binary.BigEndian.PutUint64(dst[8:16], hex8(binary.BigEndian.Uint32(id[4:8])))
	binary.BigEndian.PutUint64(dst[16:24], hex8(binary.BigEndian.Uint32(id[8:12])))
}

// hex8 returns the eight lower-case hex digits of v as the bytes of a
// big-endian word, computed in one register: it spreads v's nibbles one
// to a byte, then adds '0' to each, and 'a'-'0'-10 more to those above 9
// (a nibble n is above 9 exactly when n+6 carries into bit 4).
func hex8(v uint32) uint64 {
	x := uint64(v)
	x = (x&0xffff0000)<<16 | x&0xffff
	x = (x&0x0000ff000000ff00)<<8 | x&0x000000ff000000ff
	x = (x&0x00f000f000f000f0)<<4 | x&0x000f000f000f000f
	letters := (x + 0x0606060606060606) >> 4 & 0x0101010101010101
	return x + 0x3030303030303030 + letters*('a'-'0'-10)
}

// Hex returns the 24-digit lower-case hex form of id.
func (id ObjectID) Hex() string {
	buf := make([]byte, 24)
	encodeHex(buf, &id)
	return unsafe.String(&buf[0], len(buf)) // buf is never written again
}

// String returns the 24-digit lower-case hex form of id, like [ObjectID.Hex].
func (id ObjectID) String() string { return id.Hex() }

package types

import (
	"fmt"
	"unsafe"
)

const hexDigits = "0123456789abcdef" // for bsonTypeName

// hexValue maps an ASCII byte to its hex digit value, or 0xff.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := byte(0); i < 10; i++ {
		t['0'+i] = i
	}
	for i := byte(0); i < 6; i++ {
		t['a'+i] = 10 + i
		t['A'+i] = 10 + i
	}
	return t
}()

// ObjectIDFromHex parses the 24-digit hex form of an ObjectID, as the MongoDB
// drivers' function of the same name does. Upper- and lower-case digits are
// accepted. Any other input returns [NilObjectID] and an error wrapping
// [ErrInvalidObjectID].
func ObjectIDFromHex(s string) (ObjectID, error) {
	var id ObjectID
	if err := decodeHex(&id, s); err != nil {
		return NilObjectID, err
	}
	return id, nil
}

// ParseObjectID is [ObjectIDFromHex] under the name Go parsers use.
func ParseObjectID(s string) (ObjectID, error) { return ObjectIDFromHex(s) }

// MustObjectIDFromHex is like [ObjectIDFromHex] but panics on bad input. It is
// meant for constants in tests and examples.
func MustObjectIDFromHex(s string) ObjectID {
	id, err := ObjectIDFromHex(s)
	if err != nil {
		panic(err)
	}
	return id
}

// decodeHex decodes 24 hex digits into id, leaving id unchanged on error.
// Bad digits are detected once, after the loop: every table entry for a
// non-digit has its high bits set, so OR-ing the looked-up values suffices.
// The loop takes four digits a round, which lets the compiler drop bounds
// checks and keeps the loads independent.
func decodeHex(id *ObjectID, s string) error {
	if len(s) != 24 {
		return fmt.Errorf("%w: %d characters, want 24 hex digits", ErrInvalidObjectID, len(s))
	}
	s = s[:24]
	t := &hexValue
	var out ObjectID
	var bad byte
	for i := 0; i < 24; i += 4 {
		a, b, c, d := t[s[i]], t[s[i+1]], t[s[i+2]], t[s[i+3]]
		bad |= a | b | c | d
		out[i/2] = a<<4 | b
		out[i/2+1] = c<<4 | d
	}
	if bad&0xf0 != 0 {
		return fmt.Errorf("%w: %q is not hex", ErrInvalidObjectID, s)
	}
	*id = out
	return nil
}

// decodeHexBytes is decodeHex for a byte slice, read in place.
func decodeHexBytes(id *ObjectID, b []byte) error {
	if len(b) == 0 {
		return decodeHex(id, "")
	}
	return decodeHex(id, unsafe.String(&b[0], len(b))) // decodeHex does not retain s
}

// hexPairs holds the two lower-case hex digits of every byte value.
const hexPairs = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" +
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f" +
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f" +
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f" +
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f" +
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf" +
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf" +
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"

// encodeHex writes the 24 lower-case hex digits of id into dst.
func encodeHex(dst []byte, id *ObjectID) {
	_ = dst[23]
	for i, b := range id {
		dst[2*i] = hexPairs[2*int(b)]
		dst[2*i+1] = hexPairs[2*int(b)+1]
	}
}

// Hex returns the 24-digit lower-case hex form of id.
func (id ObjectID) Hex() string {
	buf := make([]byte, 24)
	encodeHex(buf, &id)
	return unsafe.String(&buf[0], len(buf)) // buf is never written again
}

// String returns the 24-digit lower-case hex form of id, like [ObjectID.Hex].
func (id ObjectID) String() string { return id.Hex() }

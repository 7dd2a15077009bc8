package types

import "fmt"

const hexDigits = "0123456789abcdef"

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

// decodeHex decodes 24 hex digits held in a string or byte slice into id. It
// leaves id unchanged on error.
func decodeHex[T string | []byte](id *ObjectID, s T) error {
	if len(s) != 24 {
		return fmt.Errorf("%w: %d characters, want 24 hex digits", ErrInvalidObjectID, len(s))
	}
	_ = s[23]
	var out ObjectID
	for i := range out {
		hi, lo := hexValue[s[2*i]], hexValue[s[2*i+1]]
		if hi|lo > 0x0f {
			return fmt.Errorf("%w: %q is not hex", ErrInvalidObjectID, string(s))
		}
		out[i] = hi<<4 | lo
	}
	*id = out
	return nil
}

// encodeHex writes the 24 lower-case hex digits of id into dst.
func encodeHex(dst *[24]byte, id *ObjectID) {
	for i, b := range id {
		dst[2*i] = hexDigits[b>>4]
		dst[2*i+1] = hexDigits[b&0x0f]
	}
}

// Hex returns the 24-digit lower-case hex form of id.
func (id ObjectID) Hex() string {
	var buf [24]byte
	encodeHex(&buf, &id)
	return string(buf[:])
}

// String returns the 24-digit lower-case hex form of id, like [ObjectID.Hex].
func (id ObjectID) String() string { return id.Hex() }

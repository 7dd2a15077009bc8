package publicid

import (
	"encoding/binary"
	"strconv"

	"github.com/idkit-go/idkit/types"
)

// EncodeTypeID returns the public ID of id in the TypeID form (TypeID
// specification v0.3): the codec's prefix and "_" (when it has one), then
// 26 lower-case base32 digits holding the 128 bits of id encrypted with
// the codec's first key, as [Codec.Encode] encrypts it. TypeID libraries
// parse it; the UUID they read is the encrypted one. The form has no room
// for a key ID: see [DecodeTypeID].
func EncodeTypeID(c *Codec[types.UUID], id types.UUID) string {
	hi, lo := c.encrypt(c.enc, id)
	var buf [64 + 26]byte
	dst := append(buf[:0], c.prefix...)
	return string(appendBase32(dst, hi, lo, 26))
}

// DecodeTypeID returns the UUID whose TypeID form is s, as
// [EncodeTypeID] writes it. It accepts only TypeIDs with the codec's
// prefix, in canonical form. With one key in the ring every TypeID
// decodes. With several, each key is tried and the UUID accepted only if
// exactly one key gives a version 7 UUID (RFC 9562 variant), since a
// TypeID does not say which key made it; a wrong key gives a random UUID,
// which passes that test with probability 1/64. A failure returns the zero
// UUID and an error wrapping [ErrInvalid] and one of [ErrWrongPrefix],
// [ErrLength], [ErrAlphabet], [ErrNonCanonical] and [ErrUnknownKey].
func DecodeTypeID(c *Codec[types.UUID], s string) (types.UUID, error) {
	body, err := c.cutPrefix(s)
	if err != nil {
		return types.UUID{}, err
	}
	if len(body) != 26 {
		return types.UUID{}, invalid(ErrLength, s, strconv.Itoa(len(body))+" characters after the prefix, want 26")
	}
	hi, lo, top, ok := decodeBase32(body)
	if !ok {
		return types.UUID{}, invalid(ErrAlphabet, s, "want only 0-9 and a-z without i, l, o, u")
	}
	if top > 7 {
		return types.UUID{}, invalid(ErrNonCanonical, s, "the first digit is above 7")
	}
	if len(c.ring) == 1 {
		return c.decrypt(c.ring[0], hi, lo), nil
	}
	var found types.UUID
	n := 0
	for _, k := range c.ring {
		if u := c.decrypt(k, hi, lo); isV7(u) {
			found, n = u, n+1
		}
	}
	if n != 1 {
		return types.UUID{}, invalid(ErrUnknownKey, s, strconv.Itoa(n)+" keys of the ring give a version 7 UUID, want exactly 1")
	}
	return found, nil
}

// isV7 reports whether u is a version 7 UUID of the RFC 9562 variant.
func isV7(u types.UUID) bool {
	return binary.BigEndian.Uint16(u[6:8])>>12 == 7 && u[8]>>6 == 2
}

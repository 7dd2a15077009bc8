package publicid

import (
	"encoding/binary"
	"strconv"

	"github.com/idkit-go/idkit/types"
)

// The TypeID form of a UUID's public ID is 128 bits, written as TypeID's
// 26 digits (the first 0-7). A UUID of RFC 9562's variant and versions 1
// to 8 has 125 bits that vary: its 122 bits besides the 4 version and 2
// variant bits, and its version, one of 8 values. The form is the key's
// digit (0-7) in the top 3 bits, then those 125 bits encrypted with FF1
// over 125 bits under that key; decoding reads the key from the first
// digit, so it needs no trial of keys and every key of the ring decodes
// exactly what it encoded.
const (
	typeIDBits = 125 // the encrypted part: version-1 (3 bits) and 122 bits
	typeIDKeys = 8   // key digits 0-7 fit the top 3 bits
)

// EncodeTypeID returns the public ID of id in the TypeID form (TypeID
// specification v0.3): the codec's prefix and "_" (when it has one), then
// 26 lower-case base32 digits. The first digit is the encoding key's
// digit, which must be one of 0-7; the other 125 bits are id's version and
// its 122 bits besides the version and variant bits, encrypted with FF1
// (NIST SP 800-38G) over AES-256 under a key of their own. TypeID
// libraries parse it; the UUID they read says nothing of id.
//
// id must be an RFC 9562 UUID of version 1 to 8 (variant bits 10), as
// every UUID of [types.NewUUIDv7], Go's uuid package, google/uuid and
// PostgreSQL's gen_random_uuid is; others (the nil and max UUIDs, other
// variants) return an error wrapping [ErrUnsupportedUUID]. A codec whose
// first key's digit is not 0-7 returns an error wrapping
// [ErrInvalidConfig].
func EncodeTypeID(c *Codec[types.UUID], id types.UUID) (string, error) {
	k := c.enc
	if k.tid == nil {
		return "", errTypeIDKey(k.id)
	}
	hi, lo, ok := packTypeID(id)
	if !ok {
		return "", errUnsupported(id)
	}
	hi, lo = k.tid.Encrypt(hi, lo)
	hi |= uint64(digitValue[k.id]) << (typeIDBits - 64)
	var buf [64 + 26]byte
	dst := append(buf[:0], c.prefix...)
	return string(appendBase32(dst, hi, lo, 26)), nil
}

// DecodeTypeID returns the UUID whose TypeID form is s, as [EncodeTypeID]
// writes it with any key of the ring whose digit is 0-7: the first digit
// names the key. It accepts only TypeIDs with the codec's prefix, in
// canonical form; every such TypeID whose key the ring holds decodes to a
// UUID of version 1 to 8 that encodes back to s. A failure returns the
// zero UUID and an error wrapping [ErrInvalid] and one of
// [ErrWrongPrefix], [ErrLength], [ErrAlphabet], [ErrNonCanonical] and
// [ErrUnknownKey].
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
	if top >= typeIDKeys {
		return types.UUID{}, invalid(ErrNonCanonical, s, "the first digit is above 7")
	}
	k := c.byID[top]
	if k == nil || k.tid == nil {
		return types.UUID{}, invalid(ErrUnknownKey, s, "made with key "+strconv.Quote(body[:1])+", which the key ring does not hold")
	}
	hi, lo = k.tid.Decrypt(hi&(1<<(typeIDBits-64)-1), lo)
	return unpackTypeID(hi, lo), nil
}

// packTypeID returns the 125 bits of id that vary, as the number hi:lo:
// its version minus 1 (3 bits), then its 122 bits without the version
// (bits 48-51) and the variant (bits 64-65). ok is false unless id is of
// the variant 10 and a version from 1 to 8.
func packTypeID(id types.UUID) (hi, lo uint64, ok bool) {
	h, l := binary.BigEndian.Uint64(id[0:8]), binary.BigEndian.Uint64(id[8:16])
	v := h >> 12 & 0xf
	if l>>62 != 2 || v < 1 || v > 8 {
		return 0, 0, false
	}
	h60 := h>>16<<12 | h&0xfff // the 60 bits of the first half without the version
	return (v-1)<<58 | h60>>2, h60<<62 | l&(1<<62-1), true
}

// unpackTypeID inverts packTypeID.
func unpackTypeID(hi, lo uint64) types.UUID {
	v := hi>>58&7 + 1
	h60 := (hi&(1<<58-1))<<2 | lo>>62
	var id types.UUID
	binary.BigEndian.PutUint64(id[0:8], h60>>12<<16|v<<12|h60&0xfff)
	binary.BigEndian.PutUint64(id[8:16], 2<<62|lo&(1<<62-1))
	return id
}

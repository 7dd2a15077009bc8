package types

import (
	"encoding/binary"
	"fmt"
)

const (
	bsonBinary      byte = 0x05
	bsonSubtypeUUID byte = 0x04
)

var errZeroUUIDBSON = fmt.Errorf("%w: UUID 00000000-0000-0000-0000-000000000000 in BSON (fill _id with mongocompat's Filler or Insert helpers before the insert; store null with NullUUID)", ErrZeroID)

// MarshalBSONValue encodes id as BSON binary subtype 4 (type 0x05),
// MongoDB's standard UUID. The zero UUID is an error wrapping [ErrZeroID].
// The signature is that of go.mongodb.org/mongo-driver/v2/bson.ValueMarshaler;
// the v1 driver needs mongov1.Registry.
func (id UUID) MarshalBSONValue() (typ byte, data []byte, err error) {
	if id == (UUID{}) {
		return 0, nil, errZeroUUIDBSON
	}
	data = make([]byte, 21)
	data[0] = 16 // int32 little-endian length
	data[4] = bsonSubtypeUUID
	copy(data[5:], id[:])
	return bsonBinary, data, nil
}

// UnmarshalBSONValue decodes BSON binary subtype 4 of 16 bytes, a string
// that [ParseUUID] reads, or null (the zero UUID). Other types and subtypes,
// the legacy subtype 3 included, return an error wrapping [ErrInvalidUUID]
// and leave id unchanged.
func (id *UUID) UnmarshalBSONValue(typ byte, data []byte) error {
	switch typ {
	case bsonBinary:
		if len(data) < 5 || int(int32(binary.LittleEndian.Uint32(data))) != len(data)-5 {
			return fmt.Errorf("%w: malformed BSON binary", ErrInvalidUUID)
		}
		if data[4] != bsonSubtypeUUID || len(data) != 21 {
			return fmt.Errorf("%w: BSON binary subtype %d of %d bytes, want subtype 4 of 16", ErrInvalidUUID, data[4], len(data)-5)
		}
		copy(id[:], data[5:])
		return nil
	case bsonString:
		s, err := bsonStringValue(data)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidUUID, err)
		}
		return decodeUUIDBytes(id, s)
	case bsonNull:
		*id = UUID{}
		return nil
	default:
		return fmt.Errorf("%w: cannot decode BSON %s", ErrInvalidUUID, bsonTypeName(typ))
	}
}

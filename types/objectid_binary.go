package types

import (
	"encoding"
	"fmt"
)

var (
	_ encoding.BinaryMarshaler   = ObjectID{}
	_ encoding.BinaryUnmarshaler = (*ObjectID)(nil)
)

// MarshalBinary implements [encoding.BinaryMarshaler]: the 12 raw bytes, for
// protobuf bytes fields and caches. Byte order is ID order. The zero ID is
// 12 zero bytes. It never fails.
func (id ObjectID) MarshalBinary() ([]byte, error) {
	b := id
	return b[:], nil
}

// UnmarshalBinary implements [encoding.BinaryUnmarshaler]: it reads exactly
// 12 bytes; empty data (an unset protobuf bytes field) gives the zero ID.
// Other lengths return an error wrapping [ErrInvalidObjectID] and leave id
// unchanged. The bytes are copied.
func (id *ObjectID) UnmarshalBinary(data []byte) error {
	switch len(data) {
	case 12:
		copy(id[:], data)
		return nil
	case 0:
		*id = ObjectID{}
		return nil
	default:
		return fmt.Errorf("%w: binary of %d bytes, want 12", ErrInvalidObjectID, len(data))
	}
}

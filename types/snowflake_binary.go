package types

import (
	"encoding"
	"encoding/binary"
	"fmt"
)

var (
	_ encoding.BinaryMarshaler   = Snowflake(0)
	_ encoding.BinaryUnmarshaler = (*Snowflake)(nil)
)

// MarshalBinary implements [encoding.BinaryMarshaler]: 8 bytes, big-endian,
// for protobuf bytes fields and caches. Zero is 8 zero bytes. A negative s
// returns an error wrapping [ErrInvalidSnowflake].
func (s Snowflake) MarshalBinary() ([]byte, error) {
	if s < 0 {
		return nil, errNegative(int64(s))
	}
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(s)), nil
}

// UnmarshalBinary implements [encoding.BinaryUnmarshaler]: it reads exactly 8
// big-endian bytes; empty data (an unset protobuf bytes field) gives zero.
// Other lengths, and 8 bytes with the top bit set (a negative int64), return
// an error wrapping [ErrInvalidSnowflake] and leave s unchanged.
func (s *Snowflake) UnmarshalBinary(data []byte) error {
	switch len(data) {
	case 8:
		v := int64(binary.BigEndian.Uint64(data))
		if v < 0 {
			return errNegative(v)
		}
		*s = Snowflake(v)
		return nil
	case 0:
		*s = 0
		return nil
	default:
		return fmt.Errorf("%w: binary of %d bytes, want 8", ErrInvalidSnowflake, len(data))
	}
}

package types

import (
	"encoding/binary"
	"fmt"
	"math"
)

// MarshalBSONValue encodes s as a BSON int64 (type 0x12). Zero returns an
// error wrapping [ErrZeroID] (see [ObjectID.MarshalBSONValue]) and a negative s
// one wrapping [ErrInvalidSnowflake]. The signature is that of mongo-driver
// v2's bson.ValueMarshaler.
func (s Snowflake) MarshalBSONValue() (typ byte, data []byte, err error) {
	if s <= 0 {
		if s == 0 {
			return 0, nil, errZeroSnowflakeBSON
		}
		return 0, nil, errNegative(int64(s))
	}
	return bsonInt64, binary.LittleEndian.AppendUint64(make([]byte, 0, 8), uint64(s)), nil
}

// UnmarshalBSONValue decodes a BSON int64, int32, a string of decimal digits,
// a double holding a whole non-negative number below 2^53, or null (zero).
// Negative numbers, other types and malformed data return an error wrapping
// [ErrInvalidSnowflake] and leave s unchanged. The signature is that of
// go.mongodb.org/mongo-driver/v2/bson.ValueUnmarshaler.
func (s *Snowflake) UnmarshalBSONValue(typ byte, data []byte) error {
	var v int64
	switch typ {
	case bsonInt64:
		if len(data) != 8 {
			return fmt.Errorf("%w: BSON int64 of %d bytes", ErrInvalidSnowflake, len(data))
		}
		v = int64(binary.LittleEndian.Uint64(data))
	case bsonInt32:
		if len(data) != 4 {
			return fmt.Errorf("%w: BSON int32 of %d bytes", ErrInvalidSnowflake, len(data))
		}
		v = int64(int32(binary.LittleEndian.Uint32(data)))
	case bsonDouble:
		if len(data) != 8 {
			return fmt.Errorf("%w: BSON double of %d bytes", ErrInvalidSnowflake, len(data))
		}
		p, err := snowflakeOfFloat("BSON double", math.Float64frombits(binary.LittleEndian.Uint64(data)))
		if err != nil {
			return err
		}
		v = int64(p)
	case bsonString:
		text, err := bsonStringValue(data)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidSnowflake, err)
		}
		p, err := parseDecimal(text)
		if err != nil {
			return err
		}
		v = int64(p)
	case bsonNull:
		*s = 0
		return nil
	default:
		return fmt.Errorf("%w: cannot decode BSON %s", ErrInvalidSnowflake, bsonTypeName(typ))
	}
	if v < 0 {
		return errNegative(v)
	}
	*s = Snowflake(v)
	return nil
}

package types

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// BSON type bytes used by the MarshalBSONValue and UnmarshalBSONValue methods.
// They match go.mongodb.org/mongo-driver/v2/bson.Type without importing it.
const (
	bsonDouble   byte = 0x01
	bsonString   byte = 0x02
	bsonObjectID byte = 0x07
	bsonNull     byte = 0x0A
	bsonInt32    byte = 0x10
	bsonInt64    byte = 0x12
)

var errBSONString = errors.New("malformed BSON string")

// The MarshalBSONValue errors for a zero ID, built once so that refusing one
// costs no allocation. They name the MongoDB ways around it; the SQL errors
// name SQL's.
var (
	errZeroObjectIDBSON  = fmt.Errorf("%w: ObjectID 000000000000000000000000 in BSON (fill _id with mongocompat's Filler or Insert helpers before the insert; store null with NullObjectID)", ErrZeroID)
	errZeroSnowflakeBSON = fmt.Errorf("%w: Snowflake 0 in BSON (fill _id with mongocompat's Filler or Insert helpers before the insert; store null with NullSnowflake)", ErrZeroID)
)

// bsonStringValue returns the text of a BSON string value: a little-endian
// int32 length that counts the trailing NUL, the bytes, and the NUL.
func bsonStringValue(data []byte) ([]byte, error) {
	if len(data) < 5 {
		return nil, errBSONString
	}
	n := int(int32(binary.LittleEndian.Uint32(data)))
	if n < 1 || n != len(data)-4 || data[len(data)-1] != 0 {
		return nil, errBSONString
	}
	return data[4 : len(data)-1], nil
}

// bsonTypeName names a BSON type byte for error messages.
func bsonTypeName(t byte) string {
	switch t {
	case bsonDouble:
		return "double"
	case bsonString:
		return "string"
	case 0x03:
		return "embedded document"
	case 0x04:
		return "array"
	case 0x05:
		return "binary"
	case bsonObjectID:
		return "ObjectId"
	case 0x08:
		return "boolean"
	case 0x09:
		return "UTC datetime"
	case bsonNull:
		return "null"
	case bsonInt32:
		return "int32"
	case bsonInt64:
		return "int64"
	case 0x13:
		return "decimal128"
	default:
		return "type 0x" + string([]byte{hexDigits[t>>4], hexDigits[t&0x0f]})
	}
}

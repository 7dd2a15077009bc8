package idcodec

import (
	"encoding/binary"
	"math"
)

// BSON type bytes, as in the drivers' bsontype (v1) and bson.Type (v2).
const (
	bsonDouble   byte = 0x01
	bsonString   byte = 0x02
	bsonObjectID byte = 0x07
	bsonNull     byte = 0x0A
	bsonInt32    byte = 0x10
	bsonInt64    byte = 0x12
)

// scalarReader is the part of the v1 and v2 drivers' ValueReader interfaces
// that rawValue uses; both satisfy it.
type scalarReader interface {
	ReadDouble() (float64, error)
	ReadString() (string, error)
	ReadNull() error
	ReadInt32() (int32, error)
	ReadInt64() (int64, error)
	Skip() error
}

// rawValue reads the current value of vr, of BSON type t, and returns its
// raw bytes for a type's UnmarshalBSONValue method. The types that no idkit
// type accepts other than ObjectId (read by the callers directly) are
// skipped and return nil data: UnmarshalBSONValue rejects them by type
// alone.
func rawValue(vr scalarReader, t byte) ([]byte, error) {
	switch t {
	case bsonDouble:
		f, err := vr.ReadDouble()
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(f)), err
	case bsonString:
		s, err := vr.ReadString()
		b := binary.LittleEndian.AppendUint32(make([]byte, 0, len(s)+5), uint32(len(s)+1))
		return append(append(b, s...), 0), err
	case bsonNull:
		return nil, vr.ReadNull()
	case bsonInt32:
		v, err := vr.ReadInt32()
		return binary.LittleEndian.AppendUint32(nil, uint32(v)), err
	case bsonInt64:
		v, err := vr.ReadInt64()
		return binary.LittleEndian.AppendUint64(nil, uint64(v)), err
	default:
		return nil, vr.Skip()
	}
}

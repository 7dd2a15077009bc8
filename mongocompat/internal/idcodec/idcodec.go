// Package idcodec holds the logic the v1 and v2 MongoDB driver adapters
// (mongocompat/mongov1 and mongocompat/mongov2) share: the one implementation
// of the BSON codecs for idkit's ID types, and the insert results' IDs. It
// imports no driver: it works on the small parts of the drivers' ValueReader
// and ValueWriter interfaces that it needs, generic over each driver's BSON
// type and ObjectID types, and the adapters wrap each [Codec] in their
// driver's codec function and error types.
//
// The codecs read and write the common BSON values (an ObjectId, an int64,
// null) directly. Every other BSON value is copied as raw bytes by the
// driver (see [Raw]) and decoded by the type's own UnmarshalBSONValue
// method, so the types package holds the only decoder of those values.
package idcodec

import (
	"encoding/binary"
	"reflect"

	"github.com/idkit-go/idkit/types"
)

// BSON type bytes, as in the drivers' bsontype (v1) and bson.Type (v2).
const (
	bsonObjectID byte = 0x07
	bsonNull     byte = 0x0A
	bsonInt64    byte = 0x12
)

// Reader is the part of a driver's ValueReader the decoders use; T is the
// driver's BSON type (bsontype.Type, bson.Type) and O its ObjectID.
type Reader[T ~byte, O ~[12]byte] interface {
	Type() T
	ReadObjectID() (O, error)
	ReadInt64() (int64, error)
	ReadNull() error
}

// Raw reads the current value of r as the driver's copier does for a
// ValueUnmarshaler: its BSON type and its bytes. r is the driver's
// ValueReader that the adapter was given.
type Raw[T ~byte, O ~[12]byte] func(r Reader[T, O]) (typ byte, data []byte, err error)

// Writer is the part of a driver's ValueWriter the encoders use.
type Writer[O ~[12]byte] interface {
	WriteObjectID(O) error
	WriteInt64(int64) error
	WriteNull() error
}

// Codec encodes and decodes one idkit type. Encode and Decode assume val
// holds Type (Decode: settable); the adapters check it and report a
// mismatch with their driver's error types.
type Codec[T ~byte, O ~[12]byte] struct {
	Type   reflect.Type
	Name   string // for driver errors: "ObjectID", "Snowflake", ...
	Encode func(w Writer[O], val reflect.Value) error
	Decode func(r Reader[T, O], val reflect.Value) error
}

// The idkit types the codecs handle.
var (
	TObjectID      = reflect.TypeFor[types.ObjectID]()
	TSnowflake     = reflect.TypeFor[types.Snowflake]()
	TNullObjectID  = reflect.TypeFor[types.NullObjectID]()
	TNullSnowflake = reflect.TypeFor[types.NullSnowflake]()
)

// Codecs returns the codecs of [types.ObjectID], [types.Snowflake],
// [types.NullObjectID] and [types.NullSnowflake], with raw reading the
// values they do not read directly. They encode as the types'
// MarshalBSONValue methods do (an ObjectID as a BSON ObjectId, a Snowflake
// as an int64, an invalid Null form as null; a zero ID is an error wrapping
// [types.ErrZeroID]) and decode exactly what the types' UnmarshalBSONValue
// methods accept, with the same errors.
func Codecs[T ~byte, O ~[12]byte](raw Raw[T, O]) []Codec[T, O] {
	d := decoders[T, O]{raw}
	return []Codec[T, O]{
		{TObjectID, "ObjectID", encodeObjectID[O], d.objectID},
		{TSnowflake, "Snowflake", encodeSnowflake[O], d.snowflake},
		{TNullObjectID, "NullObjectID", encodeNullObjectID[O], d.nullObjectID},
		{TNullSnowflake, "NullSnowflake", encodeNullSnowflake[O], d.nullSnowflake},
	}
}

func encodeObjectID[O ~[12]byte](w Writer[O], val reflect.Value) error {
	return writeObjectID(w, objectIDOf(val))
}

// writeObjectID writes id as an ObjectId, refusing the zero ID with the
// error of [types.ObjectID.MarshalBSONValue].
func writeObjectID[O ~[12]byte](w Writer[O], id types.ObjectID) error {
	if id.IsZero() {
		_, _, err := id.MarshalBSONValue()
		return err
	}
	return w.WriteObjectID(O(id))
}

func encodeSnowflake[O ~[12]byte](w Writer[O], val reflect.Value) error {
	return writeSnowflake(w, val.Int())
}

// writeSnowflake writes v as an int64, refusing zero and a negative v (which
// no decoder would read back) with the errors of
// [types.Snowflake.MarshalBSONValue].
func writeSnowflake[O ~[12]byte](w Writer[O], v int64) error {
	if v <= 0 {
		_, _, err := types.Snowflake(v).MarshalBSONValue()
		return err
	}
	return w.WriteInt64(v)
}

func encodeNullObjectID[O ~[12]byte](w Writer[O], val reflect.Value) error {
	if !val.Field(nullValid).Bool() {
		return w.WriteNull()
	}
	return writeObjectID(w, objectIDOf(val.Field(nullID)))
}

func encodeNullSnowflake[O ~[12]byte](w Writer[O], val reflect.Value) error {
	if !val.Field(nullValid).Bool() {
		return w.WriteNull()
	}
	return writeSnowflake(w, val.Field(nullID).Int())
}

// decoders holds the Raw function of one driver for the decode methods.
type decoders[T ~byte, O ~[12]byte] struct{ raw Raw[T, O] }

func (d decoders[T, O]) objectID(r Reader[T, O], val reflect.Value) error {
	id, err := d.readObjectID(r)
	if err != nil {
		return err
	}
	*(*types.ObjectID)(val.Addr().UnsafePointer()) = id // settable implies addressable
	return nil
}

func (d decoders[T, O]) snowflake(r Reader[T, O], val reflect.Value) error {
	s, err := d.readSnowflake(r)
	if err != nil {
		return err
	}
	val.SetInt(int64(s))
	return nil
}

func (d decoders[T, O]) nullObjectID(r Reader[T, O], val reflect.Value) error {
	var n types.NullObjectID
	if byte(r.Type()) == bsonNull {
		if err := r.ReadNull(); err != nil {
			return err
		}
	} else {
		id, err := d.readObjectID(r)
		if err != nil {
			return err
		}
		n = types.NewNullObjectID(id)
	}
	*(*types.NullObjectID)(val.Addr().UnsafePointer()) = n
	return nil
}

func (d decoders[T, O]) nullSnowflake(r Reader[T, O], val reflect.Value) error {
	var n types.NullSnowflake
	if byte(r.Type()) == bsonNull {
		if err := r.ReadNull(); err != nil {
			return err
		}
	} else {
		s, err := d.readSnowflake(r)
		if err != nil {
			return err
		}
		n = types.NewNullSnowflake(s)
	}
	*(*types.NullSnowflake)(val.Addr().UnsafePointer()) = n
	return nil
}

// readObjectID reads an ObjectId directly and hands any other BSON value to
// types.ObjectID.UnmarshalBSONValue, so the codecs accept exactly what the
// type's own method accepts.
func (d decoders[T, O]) readObjectID(r Reader[T, O]) (types.ObjectID, error) {
	if byte(r.Type()) == bsonObjectID {
		oid, err := r.ReadObjectID()
		return types.ObjectID(oid), err
	}
	var id types.ObjectID
	t, data, err := d.raw(r)
	if err != nil {
		return id, err
	}
	err = id.UnmarshalBSONValue(t, data)
	return id, err
}

// readSnowflake reads a non-negative int64 directly and hands any other BSON
// value, and a negative int64, to types.Snowflake.UnmarshalBSONValue.
func (d decoders[T, O]) readSnowflake(r Reader[T, O]) (types.Snowflake, error) {
	var s types.Snowflake
	t := byte(r.Type())
	if t == bsonInt64 {
		v, err := r.ReadInt64()
		if err != nil || v >= 0 {
			return types.Snowflake(v), err
		}
		// Let the type report the negative value with its own error.
		return 0, s.UnmarshalBSONValue(bsonInt64, binary.LittleEndian.AppendUint64(make([]byte, 0, 8), uint64(v)))
	}
	t, data, err := d.raw(r)
	if err != nil {
		return 0, err
	}
	err = s.UnmarshalBSONValue(t, data)
	return s, err
}

// Field indexes of NullObjectID and NullSnowflake, checked at init.
var (
	nullID    = fieldIndex(TNullObjectID, "ID")
	nullValid = fieldIndex(TNullObjectID, "Valid")
)

func init() {
	if fieldIndex(TNullSnowflake, "ID") != nullID || fieldIndex(TNullSnowflake, "Valid") != nullValid {
		panic("idcodec: NullSnowflake and NullObjectID field orders differ")
	}
}

func fieldIndex(t reflect.Type, name string) int {
	f, ok := t.FieldByName(name)
	if !ok || len(f.Index) != 1 {
		panic("idcodec: " + t.String() + " has no field " + name)
	}
	return f.Index[0]
}

// objectIDOf returns the ObjectID held in val, without allocating when val is
// addressable.
func objectIDOf(val reflect.Value) types.ObjectID {
	if val.CanAddr() {
		return *(*types.ObjectID)(val.Addr().UnsafePointer())
	}
	return val.Interface().(types.ObjectID)
}

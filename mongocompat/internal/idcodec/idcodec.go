// Package idcodec holds the logic the v1 and v2 MongoDB driver adapters
// (mongocompat/mongov1 and mongocompat/mongov2) share: the one implementation
// of the BSON codecs for idkit's ID types, and the insert results' IDs. It
// imports no driver and no idkit package: it works on the small parts of the
// drivers' ValueReader and ValueWriter interfaces that it needs, generic
// over each driver's BSON type and ObjectID types, and on the idkit types
// the adapters name in [Types], through reflection and the types' own BSON
// methods. The adapters wrap each [Codec] in their driver's codec function
// and error types.
//
// The codecs read and write an ObjectId, a non-negative int64 and null
// directly. Every other BSON value is copied as raw bytes by the driver (see
// [Raw]) and decoded by the type's own UnmarshalBSONValue method, so the
// types package holds the only decoder of those values; and the errors for
// a zero or negative ID are the types' MarshalBSONValue errors.
package idcodec

import (
	"encoding/binary"
	"reflect"
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

// Types names idkit's ID types: ObjectID (a [12]byte), Snowflake (an
// int64), and their Null forms (structs with fields ID and Valid). Each has
// a MarshalBSONValue method and its pointer an UnmarshalBSONValue method,
// with the signatures of the v2 driver's ValueMarshaler and
// ValueUnmarshaler.
type Types struct {
	ObjectID, Snowflake, NullObjectID, NullSnowflake reflect.Type
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

// Codecs returns the codecs of the types ts names, with raw reading the
// values they do not read directly. They encode as the types'
// MarshalBSONValue methods do (an ObjectID as a BSON ObjectId, a Snowflake
// as an int64, an invalid Null form as null; a zero ID is the methods'
// error, wrapping types.ErrZeroID) and decode exactly what the types'
// UnmarshalBSONValue methods accept, with the same errors. It panics if ts
// does not name types of those shapes.
func Codecs[T ~byte, O ~[12]byte](ts Types, raw Raw[T, O]) []Codec[T, O] {
	check(ts)
	d := decoders[T, O]{raw}
	return []Codec[T, O]{
		{ts.ObjectID, ts.ObjectID.Name(), encodeObjectID[O], d.objectID},
		{ts.Snowflake, ts.Snowflake.Name(), encodeSnowflake[O], d.snowflake},
		{ts.NullObjectID, ts.NullObjectID.Name(), encodeNull[O](encodeObjectID[O]), d.nullForm(d.readObjectID)},
		{ts.NullSnowflake, ts.NullSnowflake.Name(), encodeNull[O](encodeSnowflake[O]), d.nullForm(d.readSnowflake)},
	}
}

// The methods the codecs call on the types, through reflection.
type (
	marshaler   interface{ MarshalBSONValue() (byte, []byte, error) }
	unmarshaler interface{ UnmarshalBSONValue(byte, []byte) error }
)

// Field indexes of the Null forms' ID and Valid fields, checked by check.
const (
	nullID    = 0
	nullValid = 1
)

func check(ts Types) {
	tm, tu := reflect.TypeFor[marshaler](), reflect.TypeFor[unmarshaler]()
	for _, c := range []struct {
		t    reflect.Type
		kind reflect.Kind
	}{{ts.ObjectID, reflect.Array}, {ts.Snowflake, reflect.Int64}, {ts.NullObjectID, reflect.Struct}, {ts.NullSnowflake, reflect.Struct}} {
		if c.t == nil || c.t.Kind() != c.kind || !c.t.Implements(tm) || !reflect.PointerTo(c.t).Implements(tu) {
			panic("idcodec: Types holds a type of the wrong shape")
		}
	}
	if ts.ObjectID.Len() != 12 || ts.ObjectID.Elem().Kind() != reflect.Uint8 {
		panic("idcodec: ObjectID is not a [12]byte")
	}
	for _, n := range []struct{ t, id reflect.Type }{{ts.NullObjectID, ts.ObjectID}, {ts.NullSnowflake, ts.Snowflake}} {
		if n.t.NumField() != 2 || n.t.Field(nullID).Name != "ID" || n.t.Field(nullID).Type != n.id ||
			n.t.Field(nullValid).Name != "Valid" || n.t.Field(nullValid).Type.Kind() != reflect.Bool {
			panic("idcodec: " + n.t.String() + " is not struct{ID " + n.id.String() + "; Valid bool}")
		}
	}
}

func encodeObjectID[O ~[12]byte](w Writer[O], val reflect.Value) error {
	id := bytesOf(val)
	if id == ([12]byte{}) {
		return marshalError(val)
	}
	return w.WriteObjectID(O(id))
}

// encodeSnowflake writes val as an int64, refusing zero and a negative
// value (which no decoder would read back) with the type's own error.
func encodeSnowflake[O ~[12]byte](w Writer[O], val reflect.Value) error {
	v := val.Int()
	if v <= 0 {
		return marshalError(val)
	}
	return w.WriteInt64(v)
}

// encodeNull returns the encoder of a Null form whose ID encodes with id.
func encodeNull[O ~[12]byte](id func(Writer[O], reflect.Value) error) func(Writer[O], reflect.Value) error {
	return func(w Writer[O], val reflect.Value) error {
		if !val.Field(nullValid).Bool() {
			return w.WriteNull()
		}
		return id(w, val.Field(nullID))
	}
}

// marshalError returns the error of val's MarshalBSONValue method, for an
// ID the encoders refuse.
func marshalError(val reflect.Value) error {
	_, _, err := val.Interface().(marshaler).MarshalBSONValue()
	return err
}

// decoders holds the Raw function of one driver for the decode methods.
type decoders[T ~byte, O ~[12]byte] struct{ raw Raw[T, O] }

func (d decoders[T, O]) objectID(r Reader[T, O], val reflect.Value) error {
	_, err := d.readObjectID(r, val, val)
	return err
}

func (d decoders[T, O]) snowflake(r Reader[T, O], val reflect.Value) error {
	_, err := d.readSnowflake(r, val, val)
	return err
}

// nullForm returns the decoder of a Null form whose ID read reads. BSON
// null is NULL; every value read does not read directly goes to the Null
// form's own UnmarshalBSONValue method.
func (d decoders[T, O]) nullForm(read func(r Reader[T, O], val, into reflect.Value) (bool, error)) func(Reader[T, O], reflect.Value) error {
	return func(r Reader[T, O], val reflect.Value) error {
		if byte(r.Type()) == bsonNull {
			if err := r.ReadNull(); err != nil {
				return err
			}
			val.SetZero()
			return nil
		}
		raw, err := read(r, val.Field(nullID), val)
		if err == nil && !raw {
			val.Field(nullValid).SetBool(true)
		}
		return err
	}
}

// readObjectID reads an ObjectId into the ObjectID val directly, or else
// hands the value to the UnmarshalBSONValue method of into (val or the Null
// form holding it), so the codecs accept exactly what the types' own
// methods accept. It reports whether into's method decoded the value.
func (d decoders[T, O]) readObjectID(r Reader[T, O], val, into reflect.Value) (bool, error) {
	if byte(r.Type()) == bsonObjectID {
		oid, err := r.ReadObjectID()
		if err == nil {
			*(*[12]byte)(val.Addr().UnsafePointer()) = oid // settable implies addressable
		}
		return false, err
	}
	return true, d.unmarshalRaw(r, into)
}

// readSnowflake reads a non-negative int64 into the Snowflake val directly,
// or else hands the value to the UnmarshalBSONValue method of into, as
// readObjectID does; a negative int64 goes to that method too, which
// reports it.
func (d decoders[T, O]) readSnowflake(r Reader[T, O], val, into reflect.Value) (bool, error) {
	if byte(r.Type()) != bsonInt64 {
		return true, d.unmarshalRaw(r, into)
	}
	v, err := r.ReadInt64()
	if err != nil {
		return false, err
	}
	if v >= 0 {
		val.SetInt(v)
		return false, nil
	}
	return true, unmarshal(into, bsonInt64, binary.LittleEndian.AppendUint64(make([]byte, 0, 8), uint64(v)))
}

// unmarshalRaw copies the current value of r and hands it to into's
// UnmarshalBSONValue method.
func (d decoders[T, O]) unmarshalRaw(r Reader[T, O], into reflect.Value) error {
	t, data, err := d.raw(r)
	if err != nil {
		return err
	}
	return unmarshal(into, t, data)
}

// unmarshal calls the UnmarshalBSONValue method of the settable val.
func unmarshal(val reflect.Value, t byte, data []byte) error {
	return val.Addr().Interface().(unmarshaler).UnmarshalBSONValue(t, data)
}

// bytesOf returns the [12]byte held in val, without allocating when val is
// addressable.
func bytesOf(val reflect.Value) [12]byte {
	if val.CanAddr() {
		return *(*[12]byte)(val.Addr().UnsafePointer())
	}
	var b [12]byte
	reflect.Copy(reflect.ValueOf(&b).Elem(), val)
	return b
}

package mongocompat

import (
	"reflect"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsoncodec"
	"go.mongodb.org/mongo-driver/bson/bsonrw"
	"go.mongodb.org/mongo-driver/bson/bsontype"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/idkit-go/idkit/types"
)

// V1Registry returns a new registry for the v1 driver: the driver's default
// registry (bson.NewRegistry) with the codecs of [RegisterV1]. Use it with
// options.Client().SetRegistry, or the database or collection options, and
// with bson.MarshalWithRegistry and bson.UnmarshalWithRegistry. Each call
// returns a new registry; a registry is safe for concurrent use once built.
func V1Registry() *bsoncodec.Registry {
	reg := bson.NewRegistry()
	RegisterV1(reg)
	return reg
}

// RegisterV1 registers on reg, a v1 driver registry, encoders and decoders
// for [types.ObjectID], [types.Snowflake], [types.NullObjectID] and
// [types.NullSnowflake] (pointers to them are handled by the driver's
// pointer codec). They encode as the types' MarshalBSONValue methods do (an
// ObjectID as a BSON ObjectId, a Snowflake as an int64, a NULL as null) and
// decode what the types' UnmarshalBSONValue methods accept; a value they do
// not accept gives an error wrapping [types.ErrInvalidObjectID] or
// [types.ErrInvalidSnowflake]. It must not be called while reg is in use.
//
// BSON ObjectIds decoded into interface values (bson.M, bson.D) stay
// primitive.ObjectID unless [MapV1ObjectIDs] is also applied.
func RegisterV1(reg *bsoncodec.Registry) {
	reg.RegisterTypeEncoder(tObjectID, bsoncodec.ValueEncoderFunc(encodeObjectIDV1))
	reg.RegisterTypeDecoder(tObjectID, bsoncodec.ValueDecoderFunc(decodeObjectIDV1))
	reg.RegisterTypeEncoder(tSnowflake, bsoncodec.ValueEncoderFunc(encodeSnowflakeV1))
	reg.RegisterTypeDecoder(tSnowflake, bsoncodec.ValueDecoderFunc(decodeSnowflakeV1))
	reg.RegisterTypeEncoder(tNullObjectID, bsoncodec.ValueEncoderFunc(encodeNullObjectIDV1))
	reg.RegisterTypeDecoder(tNullObjectID, bsoncodec.ValueDecoderFunc(decodeNullObjectIDV1))
	reg.RegisterTypeEncoder(tNullSnowflake, bsoncodec.ValueEncoderFunc(encodeNullSnowflakeV1))
	reg.RegisterTypeDecoder(tNullSnowflake, bsoncodec.ValueDecoderFunc(decodeNullSnowflakeV1))
}

// MapV1ObjectIDs makes reg, a v1 driver registry with the codecs of
// [RegisterV1], decode BSON ObjectIds into [types.ObjectID] where the
// destination is an interface (bson.M, bson.D, interface{} fields) instead
// of primitive.ObjectID. Code that type-asserts primitive.ObjectID on such
// values must then assert types.ObjectID. It must not be called while reg is
// in use.
func MapV1ObjectIDs(reg *bsoncodec.Registry) {
	reg.RegisterTypeMapEntry(bsontype.ObjectID, tObjectID)
}

func encodeObjectIDV1(_ bsoncodec.EncodeContext, vw bsonrw.ValueWriter, val reflect.Value) error {
	if !val.IsValid() || val.Type() != tObjectID {
		return bsoncodec.ValueEncoderError{Name: "mongocompat.ObjectIDEncodeValue", Types: []reflect.Type{tObjectID}, Received: val}
	}
	return vw.WriteObjectID(primitive.ObjectID(objectIDOf(val)))
}

func encodeSnowflakeV1(_ bsoncodec.EncodeContext, vw bsonrw.ValueWriter, val reflect.Value) error {
	if !val.IsValid() || val.Type() != tSnowflake {
		return bsoncodec.ValueEncoderError{Name: "mongocompat.SnowflakeEncodeValue", Types: []reflect.Type{tSnowflake}, Received: val}
	}
	return vw.WriteInt64(val.Int())
}

func encodeNullObjectIDV1(_ bsoncodec.EncodeContext, vw bsonrw.ValueWriter, val reflect.Value) error {
	if !val.IsValid() || val.Type() != tNullObjectID {
		return bsoncodec.ValueEncoderError{Name: "mongocompat.NullObjectIDEncodeValue", Types: []reflect.Type{tNullObjectID}, Received: val}
	}
	if !val.Field(nullValid).Bool() {
		return vw.WriteNull()
	}
	return vw.WriteObjectID(primitive.ObjectID(objectIDOf(val.Field(nullID))))
}

func encodeNullSnowflakeV1(_ bsoncodec.EncodeContext, vw bsonrw.ValueWriter, val reflect.Value) error {
	if !val.IsValid() || val.Type() != tNullSnowflake {
		return bsoncodec.ValueEncoderError{Name: "mongocompat.NullSnowflakeEncodeValue", Types: []reflect.Type{tNullSnowflake}, Received: val}
	}
	if !val.Field(nullValid).Bool() {
		return vw.WriteNull()
	}
	return vw.WriteInt64(val.Field(nullID).Int())
}

func decodeObjectIDV1(_ bsoncodec.DecodeContext, vr bsonrw.ValueReader, val reflect.Value) error {
	if !val.CanSet() || val.Type() != tObjectID {
		return bsoncodec.ValueDecoderError{Name: "mongocompat.ObjectIDDecodeValue", Types: []reflect.Type{tObjectID}, Received: val}
	}
	id, err := readObjectIDV1(vr)
	if err != nil {
		return err
	}
	*(*types.ObjectID)(val.Addr().UnsafePointer()) = id // CanSet implies addressable
	return nil
}

func decodeSnowflakeV1(_ bsoncodec.DecodeContext, vr bsonrw.ValueReader, val reflect.Value) error {
	if !val.CanSet() || val.Type() != tSnowflake {
		return bsoncodec.ValueDecoderError{Name: "mongocompat.SnowflakeDecodeValue", Types: []reflect.Type{tSnowflake}, Received: val}
	}
	s, err := readSnowflakeV1(vr)
	if err != nil {
		return err
	}
	val.SetInt(int64(s))
	return nil
}

func decodeNullObjectIDV1(_ bsoncodec.DecodeContext, vr bsonrw.ValueReader, val reflect.Value) error {
	if !val.CanSet() || val.Type() != tNullObjectID {
		return bsoncodec.ValueDecoderError{Name: "mongocompat.NullObjectIDDecodeValue", Types: []reflect.Type{tNullObjectID}, Received: val}
	}
	var n types.NullObjectID
	if vr.Type() == bsontype.Null {
		if err := vr.ReadNull(); err != nil {
			return err
		}
	} else {
		id, err := readObjectIDV1(vr)
		if err != nil {
			return err
		}
		n = types.NewNullObjectID(id)
	}
	*(*types.NullObjectID)(val.Addr().UnsafePointer()) = n
	return nil
}

func decodeNullSnowflakeV1(_ bsoncodec.DecodeContext, vr bsonrw.ValueReader, val reflect.Value) error {
	if !val.CanSet() || val.Type() != tNullSnowflake {
		return bsoncodec.ValueDecoderError{Name: "mongocompat.NullSnowflakeDecodeValue", Types: []reflect.Type{tNullSnowflake}, Received: val}
	}
	var n types.NullSnowflake
	if vr.Type() == bsontype.Null {
		if err := vr.ReadNull(); err != nil {
			return err
		}
	} else {
		s, err := readSnowflakeV1(vr)
		if err != nil {
			return err
		}
		n = types.NewNullSnowflake(s)
	}
	*(*types.NullSnowflake)(val.Addr().UnsafePointer()) = n
	return nil
}

// readObjectIDV1 reads an ObjectId directly and hands any other BSON value
// to types.ObjectID.UnmarshalBSONValue, so the codecs accept exactly what
// the type's own method accepts.
func readObjectIDV1(vr bsonrw.ValueReader) (types.ObjectID, error) {
	var id types.ObjectID
	if vr.Type() == bsontype.ObjectID {
		oid, err := vr.ReadObjectID()
		return types.ObjectID(oid), err
	}
	t := byte(vr.Type())
	data, err := rawValue(vr, t)
	if err != nil {
		return id, err
	}
	err = id.UnmarshalBSONValue(t, data)
	return id, err
}

// readSnowflakeV1 reads an int64 directly and hands any other BSON value to
// types.Snowflake.UnmarshalBSONValue.
func readSnowflakeV1(vr bsonrw.ValueReader) (types.Snowflake, error) {
	var s types.Snowflake
	if vr.Type() == bsontype.Int64 {
		v, err := vr.ReadInt64()
		if err != nil || v >= 0 {
			return types.Snowflake(v), err
		}
		// Let the type report the negative value with its own error.
		err = s.UnmarshalBSONValue(bsonInt64, appendInt64(v))
		return 0, err
	}
	t := byte(vr.Type())
	data, err := rawValue(vr, t)
	if err != nil {
		return 0, err
	}
	err = s.UnmarshalBSONValue(t, data)
	return s, err
}

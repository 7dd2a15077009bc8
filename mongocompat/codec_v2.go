package mongocompat

import (
	"reflect"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/types"
)

// V2Registry returns a new registry for the v2 driver: the driver's default
// registry (bson.NewRegistry) with the codecs of [RegisterV2]. The v2 driver
// handles idkit types without it; the registry only makes encoding and
// decoding them as fast as the driver's own ObjectID (without it, the
// driver's per-value reflection makes a {_id, name} round trip about twice
// as slow; see BenchmarkDocumentRoundTrip). Use it with
// options.Client().SetRegistry (or the database or collection options), or
// with a bson.Encoder/Decoder. Each call returns a new registry; a registry
// is safe for concurrent use once built.
func V2Registry() *bson.Registry {
	reg := bson.NewRegistry()
	RegisterV2(reg)
	return reg
}

// RegisterV2 registers on reg, a v2 driver registry, encoders and decoders
// for [types.ObjectID], [types.Snowflake], [types.NullObjectID] and
// [types.NullSnowflake] that read and write the values directly instead of
// through the types' MarshalBSONValue and UnmarshalBSONValue methods, which
// the driver calls through reflection and a copy of the bytes. They encode
// and decode exactly as those methods do; a value the methods do not accept
// gives an error wrapping [types.ErrInvalidObjectID] or
// [types.ErrInvalidSnowflake]. It must not be called while reg is in use.
func RegisterV2(reg *bson.Registry) {
	reg.RegisterTypeEncoder(tObjectID, bson.ValueEncoderFunc(encodeObjectIDV2))
	reg.RegisterTypeDecoder(tObjectID, bson.ValueDecoderFunc(decodeObjectIDV2))
	reg.RegisterTypeEncoder(tSnowflake, bson.ValueEncoderFunc(encodeSnowflakeV2))
	reg.RegisterTypeDecoder(tSnowflake, bson.ValueDecoderFunc(decodeSnowflakeV2))
	reg.RegisterTypeEncoder(tNullObjectID, bson.ValueEncoderFunc(encodeNullObjectIDV2))
	reg.RegisterTypeDecoder(tNullObjectID, bson.ValueDecoderFunc(decodeNullObjectIDV2))
	reg.RegisterTypeEncoder(tNullSnowflake, bson.ValueEncoderFunc(encodeNullSnowflakeV2))
	reg.RegisterTypeDecoder(tNullSnowflake, bson.ValueDecoderFunc(decodeNullSnowflakeV2))
}

// MapV2ObjectIDs makes reg, a v2 driver registry, decode BSON ObjectIds into
// [types.ObjectID] where the destination is an interface (bson.M, bson.D,
// any fields) instead of bson.ObjectID. Code that type-asserts
// bson.ObjectID on such values must then assert types.ObjectID. Decoding
// into typed fields is unchanged. It must not be called while reg is in use.
func MapV2ObjectIDs(reg *bson.Registry) {
	reg.RegisterTypeMapEntry(bson.TypeObjectID, tObjectID)
}

func encodeObjectIDV2(_ bson.EncodeContext, vw bson.ValueWriter, val reflect.Value) error {
	if !val.IsValid() || val.Type() != tObjectID {
		return bson.ValueEncoderError{Name: "mongocompat.ObjectIDEncodeValue", Types: []reflect.Type{tObjectID}, Received: val}
	}
	return vw.WriteObjectID(bson.ObjectID(objectIDOf(val)))
}

func encodeSnowflakeV2(_ bson.EncodeContext, vw bson.ValueWriter, val reflect.Value) error {
	if !val.IsValid() || val.Type() != tSnowflake {
		return bson.ValueEncoderError{Name: "mongocompat.SnowflakeEncodeValue", Types: []reflect.Type{tSnowflake}, Received: val}
	}
	return vw.WriteInt64(val.Int())
}

func encodeNullObjectIDV2(_ bson.EncodeContext, vw bson.ValueWriter, val reflect.Value) error {
	if !val.IsValid() || val.Type() != tNullObjectID {
		return bson.ValueEncoderError{Name: "mongocompat.NullObjectIDEncodeValue", Types: []reflect.Type{tNullObjectID}, Received: val}
	}
	if !val.Field(nullValid).Bool() {
		return vw.WriteNull()
	}
	return vw.WriteObjectID(bson.ObjectID(objectIDOf(val.Field(nullID))))
}

func encodeNullSnowflakeV2(_ bson.EncodeContext, vw bson.ValueWriter, val reflect.Value) error {
	if !val.IsValid() || val.Type() != tNullSnowflake {
		return bson.ValueEncoderError{Name: "mongocompat.NullSnowflakeEncodeValue", Types: []reflect.Type{tNullSnowflake}, Received: val}
	}
	if !val.Field(nullValid).Bool() {
		return vw.WriteNull()
	}
	return vw.WriteInt64(val.Field(nullID).Int())
}

func decodeObjectIDV2(_ bson.DecodeContext, vr bson.ValueReader, val reflect.Value) error {
	if !val.CanSet() || val.Type() != tObjectID {
		return bson.ValueDecoderError{Name: "mongocompat.ObjectIDDecodeValue", Types: []reflect.Type{tObjectID}, Received: val}
	}
	id, err := readObjectIDV2(vr)
	if err != nil {
		return err
	}
	*(*types.ObjectID)(val.Addr().UnsafePointer()) = id // CanSet implies addressable
	return nil
}

func decodeSnowflakeV2(_ bson.DecodeContext, vr bson.ValueReader, val reflect.Value) error {
	if !val.CanSet() || val.Type() != tSnowflake {
		return bson.ValueDecoderError{Name: "mongocompat.SnowflakeDecodeValue", Types: []reflect.Type{tSnowflake}, Received: val}
	}
	s, err := readSnowflakeV2(vr)
	if err != nil {
		return err
	}
	val.SetInt(int64(s))
	return nil
}

func decodeNullObjectIDV2(_ bson.DecodeContext, vr bson.ValueReader, val reflect.Value) error {
	if !val.CanSet() || val.Type() != tNullObjectID {
		return bson.ValueDecoderError{Name: "mongocompat.NullObjectIDDecodeValue", Types: []reflect.Type{tNullObjectID}, Received: val}
	}
	var n types.NullObjectID
	if vr.Type() == bson.TypeNull {
		if err := vr.ReadNull(); err != nil {
			return err
		}
	} else {
		id, err := readObjectIDV2(vr)
		if err != nil {
			return err
		}
		n = types.NewNullObjectID(id)
	}
	*(*types.NullObjectID)(val.Addr().UnsafePointer()) = n
	return nil
}

func decodeNullSnowflakeV2(_ bson.DecodeContext, vr bson.ValueReader, val reflect.Value) error {
	if !val.CanSet() || val.Type() != tNullSnowflake {
		return bson.ValueDecoderError{Name: "mongocompat.NullSnowflakeDecodeValue", Types: []reflect.Type{tNullSnowflake}, Received: val}
	}
	var n types.NullSnowflake
	if vr.Type() == bson.TypeNull {
		if err := vr.ReadNull(); err != nil {
			return err
		}
	} else {
		s, err := readSnowflakeV2(vr)
		if err != nil {
			return err
		}
		n = types.NewNullSnowflake(s)
	}
	*(*types.NullSnowflake)(val.Addr().UnsafePointer()) = n
	return nil
}

// readObjectIDV2 reads an ObjectId directly and hands any other BSON value
// to types.ObjectID.UnmarshalBSONValue.
func readObjectIDV2(vr bson.ValueReader) (types.ObjectID, error) {
	var id types.ObjectID
	if vr.Type() == bson.TypeObjectID {
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

// readSnowflakeV2 reads a non-negative int64 directly and hands any other
// BSON value to types.Snowflake.UnmarshalBSONValue.
func readSnowflakeV2(vr bson.ValueReader) (types.Snowflake, error) {
	var s types.Snowflake
	if vr.Type() == bson.TypeInt64 {
		v, err := vr.ReadInt64()
		if err != nil || v >= 0 {
			return types.Snowflake(v), err
		}
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

package mongov1

import (
	"reflect"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsoncodec"
	"go.mongodb.org/mongo-driver/bson/bsonrw"
	"go.mongodb.org/mongo-driver/bson/bsontype"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/idkit-go/idkit/mongocompat/internal/idcodec"
	"github.com/idkit-go/idkit/types"
)

// idTypes names the types the codecs serve.
var idTypes = idcodec.Types{
	ObjectID:      reflect.TypeFor[types.ObjectID](),
	Snowflake:     reflect.TypeFor[types.Snowflake](),
	NullObjectID:  reflect.TypeFor[types.NullObjectID](),
	NullSnowflake: reflect.TypeFor[types.NullSnowflake](),
}

// Registry returns a new registry for the v1 driver: the driver's default
// registry (bson.NewRegistry) with encoders and decoders for
// [types.ObjectID], [types.Snowflake], [types.NullObjectID] and
// [types.NullSnowflake], [types.UUID] and [types.NullUUID] (pointers to them
// are handled by the driver's pointer codec). They encode as the types'
// MarshalBSONValue methods do (an ObjectID as a BSON ObjectId, a Snowflake
// as an int64, a UUID as binary subtype 4, an invalid Null form
// as null; a zero ID is an error wrapping [types.ErrZeroID]) and decode
// what the types' UnmarshalBSONValue methods accept; a value they do not
// accept gives an error wrapping [types.ErrInvalidObjectID] or
// [types.ErrInvalidSnowflake].
//
// Use it with options.Client().SetRegistry, or the database or collection
// options, and with bson.MarshalWithRegistry and bson.UnmarshalWithRegistry.
// BSON ObjectIds decoded into interface values (bson.M, bson.D) stay
// primitive.ObjectID unless [MapObjectIDs] is also applied. Each call
// returns a new registry; a registry is safe for concurrent use once built.
func Registry() *bsoncodec.Registry {
	reg := bson.NewRegistry()
	for _, c := range idcodec.Codecs(idTypes, raw) {
		reg.RegisterTypeEncoder(c.Type, bsoncodec.ValueEncoderFunc(func(_ bsoncodec.EncodeContext, vw bsonrw.ValueWriter, val reflect.Value) error {
			if !val.IsValid() || val.Type() != c.Type {
				return bsoncodec.ValueEncoderError{Name: "mongov1." + c.Name + "EncodeValue", Types: []reflect.Type{c.Type}, Received: val}
			}
			return c.Encode(vw, val)
		}))
		reg.RegisterTypeDecoder(c.Type, bsoncodec.ValueDecoderFunc(func(_ bsoncodec.DecodeContext, vr bsonrw.ValueReader, val reflect.Value) error {
			if !val.CanSet() || val.Type() != c.Type {
				return bsoncodec.ValueDecoderError{Name: "mongov1." + c.Name + "DecodeValue", Types: []reflect.Type{c.Type}, Received: val}
			}
			return c.Decode(vr, val)
		}))
	}
	registerUUID(reg)
	return reg
}

// raw copies the current value as the driver's ValueUnmarshaler decoder does.
func raw(r idcodec.Reader[bsontype.Type, primitive.ObjectID]) (byte, []byte, error) {
	t, data, err := bsonrw.Copier{}.CopyValueToBytes(r.(bsonrw.ValueReader))
	return byte(t), data, err
}

// MapObjectIDs makes reg, a v1 driver registry made by [Registry], decode
// BSON ObjectIds into [types.ObjectID] where the destination is an interface
// (bson.M, bson.D, interface{} fields) instead of primitive.ObjectID. Code
// that type-asserts primitive.ObjectID on such values must then assert
// types.ObjectID. It must not be called while reg is in use.
func MapObjectIDs(reg *bsoncodec.Registry) {
	reg.RegisterTypeMapEntry(bsontype.ObjectID, idTypes.ObjectID)
}

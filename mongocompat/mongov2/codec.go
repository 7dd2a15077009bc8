package mongov2

import (
	"reflect"

	"go.mongodb.org/mongo-driver/v2/bson"

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

// Registry returns a new registry for the v2 driver: the driver's default
// registry (bson.NewRegistry) with encoders and decoders for
// [types.ObjectID], [types.Snowflake], [types.NullObjectID] and
// [types.NullSnowflake] that read and write the values directly.
//
// The v2 driver handles idkit types without it, through their
// MarshalBSONValue and UnmarshalBSONValue methods; for each such value it
// checks the type's method set by reflection several times and copies the
// bytes, which the registry's codecs skip (see docs/mongodb.md for the
// measured cost). They encode and decode exactly as those methods do: a
// zero ID is an error wrapping [types.ErrZeroID], and a value the methods
// do not accept gives an error wrapping [types.ErrInvalidObjectID] or
// [types.ErrInvalidSnowflake].
//
// Use it with options.Client().SetRegistry (or the database or collection
// options), or with a bson.Encoder/Decoder. Each call returns a new
// registry; a registry is safe for concurrent use once built.
func Registry() *bson.Registry {
	reg := bson.NewRegistry()
	rawDecoder, err := reg.LookupDecoder(reflect.TypeFor[bson.RawValue]())
	if err != nil {
		panic("mongov2: the driver's default registry has no RawValue decoder: " + err.Error())
	}
	raw := func(r idcodec.Reader[bson.Type, bson.ObjectID]) (byte, []byte, error) {
		var v bson.RawValue
		err := rawDecoder.DecodeValue(bson.DecodeContext{}, r.(bson.ValueReader), reflect.ValueOf(&v).Elem())
		return byte(v.Type), v.Value, err
	}
	for _, c := range idcodec.Codecs(idTypes, raw) {
		reg.RegisterTypeEncoder(c.Type, bson.ValueEncoderFunc(func(_ bson.EncodeContext, vw bson.ValueWriter, val reflect.Value) error {
			if !val.IsValid() || val.Type() != c.Type {
				return bson.ValueEncoderError{Name: "mongov2." + c.Name + "EncodeValue", Types: []reflect.Type{c.Type}, Received: val}
			}
			return c.Encode(vw, val)
		}))
		reg.RegisterTypeDecoder(c.Type, bson.ValueDecoderFunc(func(_ bson.DecodeContext, vr bson.ValueReader, val reflect.Value) error {
			if !val.CanSet() || val.Type() != c.Type {
				return bson.ValueDecoderError{Name: "mongov2." + c.Name + "DecodeValue", Types: []reflect.Type{c.Type}, Received: val}
			}
			return c.Decode(vr, val)
		}))
	}
	return reg
}

// MapObjectIDs makes reg, a v2 driver registry, decode BSON ObjectIds into
// [types.ObjectID] where the destination is an interface (bson.M, bson.D,
// any fields) instead of bson.ObjectID. Code that type-asserts
// bson.ObjectID on such values must then assert types.ObjectID. Decoding
// into typed fields is unchanged. It must not be called while reg is in use.
func MapObjectIDs(reg *bson.Registry) {
	reg.RegisterTypeMapEntry(bson.TypeObjectID, idTypes.ObjectID)
}

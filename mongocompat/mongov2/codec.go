package mongov2

import (
	"reflect"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/mongocompat/internal/idcodec"
)

// Registry returns a new registry for the v2 driver: the driver's default
// registry (bson.NewRegistry) with the codecs of [Register]. The v2 driver
// handles idkit types without it; the registry only makes encoding and
// decoding them as fast as the driver's own ObjectID (without it, the
// driver's per-value reflection makes a {_id, name} round trip about twice
// as slow; see BenchmarkDocumentRoundTrip). Use it with
// options.Client().SetRegistry (or the database or collection options), or
// with a bson.Encoder/Decoder. Each call returns a new registry; a registry
// is safe for concurrent use once built.
func Registry() *bson.Registry {
	reg := bson.NewRegistry()
	Register(reg)
	return reg
}

// Register registers on reg, a v2 driver registry, encoders and decoders
// for [types.ObjectID], [types.Snowflake], [types.NullObjectID] and
// [types.NullSnowflake] that read and write the values directly instead of
// through the types' MarshalBSONValue and UnmarshalBSONValue methods, which
// the driver calls through reflection and a copy of the bytes. They encode
// and decode exactly as those methods do; a value the methods do not accept
// gives an error wrapping [types.ErrInvalidObjectID] or
// [types.ErrInvalidSnowflake]. It must not be called while reg is in use.
func Register(reg *bson.Registry) {
	for _, c := range idcodec.Codecs[bson.Type, bson.ObjectID]() {
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
}

// MapObjectIDs makes reg, a v2 driver registry, decode BSON ObjectIds into
// [types.ObjectID] where the destination is an interface (bson.M, bson.D,
// any fields) instead of bson.ObjectID. Code that type-asserts
// bson.ObjectID on such values must then assert types.ObjectID. Decoding
// into typed fields is unchanged. It must not be called while reg is in use.
func MapObjectIDs(reg *bson.Registry) {
	reg.RegisterTypeMapEntry(bson.TypeObjectID, idcodec.TObjectID)
}

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

// Registry returns a new v2 driver registry: the driver's default registry
// with codecs for [types.ObjectID], [types.Snowflake] and their Null forms
// that encode and decode exactly as the types' BSON methods do, faster (a zero
// ID is an error wrapping [types.ErrZeroID]). The driver needs no registry for
// those types. On Go 1.27 and later the registry also stores Go's uuid.UUID
// as BSON binary subtype 4, MongoDB's UUID (the driver alone writes generic
// binary, subtype 0), refuses the nil UUID as [types.UUID] does, and reads
// subtype 4 or 0 of 16 bytes, a UUID string or null back. Pass it to
// options.Client().SetRegistry (or the database or collection options). A
// registry is safe for concurrent use once built.
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
	registerStdUUID(reg)
	return reg
}

// MapObjectIDs makes reg decode BSON ObjectIds into [types.ObjectID] instead
// of bson.ObjectID where the destination is an interface (bson.M, bson.D, any
// fields). It must not be called while reg is in use.
func MapObjectIDs(reg *bson.Registry) {
	reg.RegisterTypeMapEntry(bson.TypeObjectID, idTypes.ObjectID)
}

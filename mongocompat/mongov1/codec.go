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

// Registry returns a new v1 driver registry: the driver's default registry
// with codecs for [types.ObjectID], [types.Snowflake], [types.UUID] (binary
// subtype 4) and their Null forms, which encode and decode as the types' BSON
// methods do (a zero ID is an error wrapping [types.ErrZeroID]). On Go 1.27
// and later it also stores Go's uuid.UUID as binary subtype 4 (the driver
// alone writes subtype 0), refuses the nil UUID, and reads subtype 4 or 0 of
// 16 bytes, a UUID string or null back. Pass it to
// options.Client().SetRegistry (or the database or collection options). A
// registry is safe for concurrent use once built.
func Registry() *bsoncodec.Registry {
	reg := bson.NewRegistry()
	rc := newRawCodec(reg)
	raw := func(r idcodec.Reader[bsontype.Type, primitive.ObjectID]) (byte, []byte, error) {
		t, data, err := rc.read(r.(bsonrw.ValueReader))
		return byte(t), data, err
	}
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
	registerUUID(reg, rc)
	registerStdUUID(reg)
	return reg
}

// rawCodec reads and writes a value as raw bytes through the registry's
// codecs for bson.RawValue, which copy it as the driver's
// ValueUnmarshaler decoder and ValueMarshaler encoder do.
type rawCodec struct {
	enc bsoncodec.ValueEncoder
	dec bsoncodec.ValueDecoder
}

func newRawCodec(reg *bsoncodec.Registry) rawCodec {
	t := reflect.TypeFor[bson.RawValue]()
	enc, err := reg.LookupEncoder(t)
	if err != nil {
		panic("mongov1: the driver's default registry has no RawValue encoder: " + err.Error())
	}
	dec, err := reg.LookupDecoder(t)
	if err != nil {
		panic("mongov1: the driver's default registry has no RawValue decoder: " + err.Error())
	}
	return rawCodec{enc, dec}
}

// read returns the BSON type and bytes of the current value of vr.
func (rc rawCodec) read(vr bsonrw.ValueReader) (bsontype.Type, []byte, error) {
	var v bson.RawValue
	err := rc.dec.DecodeValue(bsoncodec.DecodeContext{}, vr, reflect.ValueOf(&v).Elem())
	return v.Type, v.Value, err
}

// write writes the value of BSON type t and bytes data to vw.
func (rc rawCodec) write(vw bsonrw.ValueWriter, t bsontype.Type, data []byte) error {
	return rc.enc.EncodeValue(bsoncodec.EncodeContext{}, vw, reflect.ValueOf(bson.RawValue{Type: t, Value: data}))
}

// MapObjectIDs makes reg, made by [Registry], decode BSON ObjectIds into
// [types.ObjectID] instead of primitive.ObjectID where the destination is an
// interface (bson.M, bson.D, interface{} fields). It must not be called while
// reg is in use.
func MapObjectIDs(reg *bsoncodec.Registry) {
	reg.RegisterTypeMapEntry(bson.TypeObjectID, idTypes.ObjectID)
}

package mongov1

import (
	"reflect"

	"go.mongodb.org/mongo-driver/bson/bsoncodec"
	"go.mongodb.org/mongo-driver/bson/bsonrw"
	"go.mongodb.org/mongo-driver/bson/bsontype"

	"github.com/idkit-go/idkit/types"
)

// registerUUID adds to reg codecs for [types.UUID] and [types.NullUUID]
// that encode and decode through the types' MarshalBSONValue and
// UnmarshalBSONValue methods, whose v2 signatures the v1 driver does not
// recognise (without them it writes a UUID as generic binary, subtype 0).
func registerUUID(reg *bsoncodec.Registry, rc rawCodec) {
	for _, t := range []reflect.Type{reflect.TypeFor[types.UUID](), reflect.TypeFor[types.NullUUID]()} {
		name := "mongov1." + t.Name()
		reg.RegisterTypeEncoder(t, bsoncodec.ValueEncoderFunc(func(_ bsoncodec.EncodeContext, vw bsonrw.ValueWriter, val reflect.Value) error {
			if !val.IsValid() || val.Type() != t {
				return bsoncodec.ValueEncoderError{Name: name + "EncodeValue", Types: []reflect.Type{t}, Received: val}
			}
			typ, data, err := val.Interface().(interface {
				MarshalBSONValue() (byte, []byte, error)
			}).MarshalBSONValue()
			if err != nil {
				return err
			}
			return rc.write(vw, bsontype.Type(typ), data)
		}))
		reg.RegisterTypeDecoder(t, bsoncodec.ValueDecoderFunc(func(_ bsoncodec.DecodeContext, vr bsonrw.ValueReader, val reflect.Value) error {
			if !val.CanSet() || val.Type() != t {
				return bsoncodec.ValueDecoderError{Name: name + "DecodeValue", Types: []reflect.Type{t}, Received: val}
			}
			typ, data, err := rc.read(vr)
			if err != nil {
				return err
			}
			return val.Addr().Interface().(interface {
				UnmarshalBSONValue(byte, []byte) error
			}).UnmarshalBSONValue(byte(typ), data)
		}))
	}
}

//go:build go1.27

package mongov2

import (
	"reflect"
	"uuid"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/mongocompat/internal/idcodec"
)

var stdUUIDType = reflect.TypeFor[uuid.UUID]()

// registerStdUUID adds to reg a codec for Go's uuid.UUID: BSON binary
// subtype 4 (the driver alone writes subtype 0), read back from subtype 4
// or 0, a string or null.
func registerStdUUID(reg *bson.Registry) {
	reg.RegisterTypeEncoder(stdUUIDType, bson.ValueEncoderFunc(func(_ bson.EncodeContext, vw bson.ValueWriter, val reflect.Value) error {
		if !val.IsValid() || val.Type() != stdUUIDType {
			return bson.ValueEncoderError{Name: "mongov2.StdUUIDEncodeValue", Types: []reflect.Type{stdUUIDType}, Received: val}
		}
		return idcodec.EncodeStdUUID(vw, val.Interface().(uuid.UUID))
	}))
	reg.RegisterTypeDecoder(stdUUIDType, bson.ValueDecoderFunc(func(_ bson.DecodeContext, vr bson.ValueReader, val reflect.Value) error {
		if !val.CanSet() || val.Type() != stdUUIDType {
			return bson.ValueDecoderError{Name: "mongov2.StdUUIDDecodeValue", Types: []reflect.Type{stdUUIDType}, Received: val}
		}
		id, err := idcodec.DecodeStdUUID(vr, byte(vr.Type()))
		if err != nil {
			return err
		}
		val.Set(reflect.ValueOf(uuid.UUID(id)))
		return nil
	}))
}

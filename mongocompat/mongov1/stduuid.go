//go:build go1.27

package mongov1

import (
	"reflect"
	"uuid"

	"go.mongodb.org/mongo-driver/bson/bsoncodec"
	"go.mongodb.org/mongo-driver/bson/bsonrw"

	"github.com/idkit-go/idkit/mongocompat/internal/idcodec"
)

var stdUUIDType = reflect.TypeFor[uuid.UUID]()

// registerStdUUID adds to reg a codec for Go's uuid.UUID: BSON binary
// subtype 4 (the driver alone writes subtype 0), read back from subtype 4
// or 0, a string or null.
func registerStdUUID(reg *bsoncodec.Registry) {
	reg.RegisterTypeEncoder(stdUUIDType, bsoncodec.ValueEncoderFunc(func(_ bsoncodec.EncodeContext, vw bsonrw.ValueWriter, val reflect.Value) error {
		if !val.IsValid() || val.Type() != stdUUIDType {
			return bsoncodec.ValueEncoderError{Name: "mongov1.StdUUIDEncodeValue", Types: []reflect.Type{stdUUIDType}, Received: val}
		}
		return idcodec.EncodeStdUUID(vw, val.Interface().(uuid.UUID))
	}))
	reg.RegisterTypeDecoder(stdUUIDType, bsoncodec.ValueDecoderFunc(func(_ bsoncodec.DecodeContext, vr bsonrw.ValueReader, val reflect.Value) error {
		if !val.CanSet() || val.Type() != stdUUIDType {
			return bsoncodec.ValueDecoderError{Name: "mongov1.StdUUIDDecodeValue", Types: []reflect.Type{stdUUIDType}, Received: val}
		}
		id, err := idcodec.DecodeStdUUID(vr, byte(vr.Type()))
		if err != nil {
			return err
		}
		val.Set(reflect.ValueOf(uuid.UUID(id)))
		return nil
	}))
}

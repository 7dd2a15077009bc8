package mongocompat

import (
	"encoding/binary"
	"reflect"

	"github.com/idkit-go/idkit/types"
)

// The idkit types this package handles.
var (
	tObjectID      = reflect.TypeFor[types.ObjectID]()
	tSnowflake     = reflect.TypeFor[types.Snowflake]()
	tNullObjectID  = reflect.TypeFor[types.NullObjectID]()
	tNullSnowflake = reflect.TypeFor[types.NullSnowflake]()
)

// Field indexes of NullObjectID and NullSnowflake, checked at init.
var (
	nullID    = fieldIndex(tNullObjectID, "ID")
	nullValid = fieldIndex(tNullObjectID, "Valid")
)

func init() {
	if fieldIndex(tNullSnowflake, "ID") != nullID || fieldIndex(tNullSnowflake, "Valid") != nullValid {
		panic("mongocompat: NullSnowflake and NullObjectID field orders differ")
	}
}

func fieldIndex(t reflect.Type, name string) int {
	f, ok := t.FieldByName(name)
	if !ok || len(f.Index) != 1 {
		panic("mongocompat: " + t.String() + " has no field " + name)
	}
	return f.Index[0]
}

// objectIDOf returns the ObjectID held in val, without allocating when val is
// addressable.
func objectIDOf(val reflect.Value) types.ObjectID {
	if val.CanAddr() {
		return *(*types.ObjectID)(val.Addr().UnsafePointer())
	}
	return val.Interface().(types.ObjectID)
}

func appendInt64(v int64) []byte {
	return binary.LittleEndian.AppendUint64(make([]byte, 0, 8), uint64(v))
}

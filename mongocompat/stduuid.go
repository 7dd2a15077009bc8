//go:build go1.27

package mongocompat

import (
	"reflect"
	"uuid"

	"github.com/idkit-go/idkit/types"
)

// tStdUUID is Go's uuid.UUID, which a Filler fills like [types.UUID].
var tStdUUID = reflect.TypeFor[uuid.UUID]()

// newStdUUID returns a new version 7 uuid.UUID from [types.NewUUIDv7].
func newStdUUID() any { return uuid.UUID(types.NewUUIDv7()) }

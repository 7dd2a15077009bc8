package mongocompat

import (
	"reflect"

	"github.com/idkit-go/idkit/types"
)

// The idkit types a Filler fills.
var (
	tObjectID      = reflect.TypeFor[types.ObjectID]()
	tSnowflake     = reflect.TypeFor[types.Snowflake]()
	tNullObjectID  = reflect.TypeFor[types.NullObjectID]()
	tNullSnowflake = reflect.TypeFor[types.NullSnowflake]()
	tUUID          = reflect.TypeFor[types.UUID]()
	tNullUUID      = reflect.TypeFor[types.NullUUID]()
)

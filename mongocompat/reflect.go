package mongocompat

import "github.com/idkit-go/idkit/mongocompat/internal/idcodec"

// The idkit types a Filler fills.
var (
	tObjectID      = idcodec.TObjectID
	tSnowflake     = idcodec.TSnowflake
	tNullObjectID  = idcodec.TNullObjectID
	tNullSnowflake = idcodec.TNullSnowflake
)

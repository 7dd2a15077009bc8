package mongocompat

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/types"
)

// ToV2ObjectID returns id as the v2 driver's bson.ObjectID; the 12 bytes are
// the same.
func ToV2ObjectID(id types.ObjectID) bson.ObjectID { return bson.ObjectID(id) }

// FromV2ObjectID returns the v2 driver's bson.ObjectID as a [types.ObjectID];
// the 12 bytes are the same.
func FromV2ObjectID(id bson.ObjectID) types.ObjectID { return types.ObjectID(id) }

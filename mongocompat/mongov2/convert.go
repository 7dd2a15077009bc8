package mongov2

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/types"
)

// ToObjectID returns id as the v2 driver's bson.ObjectID; the 12 bytes are
// the same.
func ToObjectID(id types.ObjectID) bson.ObjectID { return bson.ObjectID(id) }

// FromObjectID returns the v2 driver's bson.ObjectID as a [types.ObjectID];
// the 12 bytes are the same.
func FromObjectID(id bson.ObjectID) types.ObjectID { return types.ObjectID(id) }

package mongocompat

import (
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/idkit-go/idkit/types"
)

// ToV1ObjectID returns id as the v1 driver's primitive.ObjectID; the 12 bytes
// are the same.
func ToV1ObjectID(id types.ObjectID) primitive.ObjectID { return primitive.ObjectID(id) }

// FromV1ObjectID returns the v1 driver's primitive.ObjectID as a
// [types.ObjectID]; the 12 bytes are the same.
func FromV1ObjectID(id primitive.ObjectID) types.ObjectID { return types.ObjectID(id) }

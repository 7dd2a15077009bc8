package mongov1

import (
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/idkit-go/idkit/types"
)

// ToObjectID returns id as the v1 driver's primitive.ObjectID; the 12 bytes
// are the same.
func ToObjectID(id types.ObjectID) primitive.ObjectID { return primitive.ObjectID(id) }

// FromObjectID returns the v1 driver's primitive.ObjectID as a
// [types.ObjectID]; the 12 bytes are the same.
func FromObjectID(id primitive.ObjectID) types.ObjectID { return types.ObjectID(id) }

package mongov2_test

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/types"
)

// With the v2 driver an idkit ObjectID is a BSON ObjectId without any
// registration, in structs, bson.M and filters alike.
func Example() {
	id := types.MustParseObjectID("6592008029c8c3e4dc76256c")
	data, _ := bson.Marshal(bson.M{"_id": bson.M{"$gte": id}})
	v := bson.Raw(data).Lookup("_id", "$gte")
	fmt.Println(v.Type, v.ObjectID().Hex())
	// Output: objectID 6592008029c8c3e4dc76256c
}

// types.ObjectID and the driver's bson.ObjectID are both [12]byte: convert
// with a type conversion.
func Example_conversion() {
	id := types.MustParseObjectID("6592008029c8c3e4dc76256c")
	oid := bson.ObjectID(id)
	fmt.Println(oid.Hex(), types.ObjectID(oid) == id)
	// Output: 6592008029c8c3e4dc76256c true
}

package mongocompat_test

import (
	"fmt"

	bsonv1 "go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/mongocompat"
	"github.com/idkit-go/idkit/types"
)

// With the v2 driver an idkit ObjectID is a BSON ObjectId without any
// registration, in structs, bson.M and filters alike.
func Example_v2() {
	id := types.MustObjectIDFromHex("6592008029c8c3e4dc76256c")
	data, _ := bson.Marshal(bson.M{"_id": bson.M{"$gte": id}})
	v := bson.Raw(data).Lookup("_id", "$gte")
	fmt.Println(v.Type, v.ObjectID().Hex())
	// Output: objectID 6592008029c8c3e4dc76256c
}

// The v1 driver needs the codecs of V1Registry, passed to the client with
// options.Client().SetRegistry(mongocompat.V1Registry()).
func ExampleV1Registry() {
	doc := struct {
		ID   types.ObjectID  `bson:"_id"`
		Seq  types.Snowflake `bson:"seq"`
		Name string          `bson:"name"`
	}{types.MustObjectIDFromHex("6592008029c8c3e4dc76256c"), 42, "widget"}
	data, _ := bsonv1.MarshalWithRegistry(mongocompat.V1Registry(), doc)
	raw := bsonv1.Raw(data)
	fmt.Println(raw.Lookup("_id").Type, raw.Lookup("seq").Type)
	// Output: objectID 64-bit integer
}

// A Filler sets zero keys before the insert, so the application knows them
// before the write; set keys are kept. InsertOneV2 and InsertManyV2 (and the
// V1 forms) fill and insert in one call.
func ExampleFiller() {
	type Order struct {
		ID   types.Snowflake `bson:"_id"`
		Item string          `bson:"item"`
	}
	g, err := generator.NewSnowflake(1) // node 1, held by this process only
	if err != nil {
		panic(err)
	}
	f := mongocompat.NewFiller(mongocompat.WithSnowflakeGenerator(g))
	orders := []Order{{Item: "book"}, {ID: 42, Item: "pen"}}
	ids, err := f.FillIDs(orders) // then coll.InsertMany(ctx, orders)
	fmt.Println(err, orders[0].ID != 0, orders[0].ID == ids[0], orders[1].ID)
	// Output: <nil> true true 42
}

func ExampleToV2ObjectID() {
	id := types.MustObjectIDFromHex("6592008029c8c3e4dc76256c")
	oid := mongocompat.ToV2ObjectID(id)
	fmt.Println(oid.Hex(), mongocompat.FromV2ObjectID(oid) == id)
	// Output: 6592008029c8c3e4dc76256c true
}

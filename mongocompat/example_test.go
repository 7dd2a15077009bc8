package mongocompat_test

import (
	"fmt"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/mongocompat"
	"github.com/idkit-go/idkit/types"
)

// A Filler sets zero keys before the insert, so the application knows them
// before the write; set keys are kept. mongov2.InsertOne and InsertMany (and
// mongov1's) fill and insert in one call.
func ExampleFiller() {
	type Order struct {
		ID   types.Snowflake `bson:"_id"`
		Item string          `bson:"item"`
	}
	g, err := generator.NewSnowflake(1) // node 1, held by this process only
	if err != nil {
		panic(err)
	}
	f := mongocompat.NewFiller(mongocompat.WithSnowflake(g))
	orders := []Order{{Item: "book"}, {ID: 42, Item: "pen"}}
	ids, err := f.FillIDs(orders) // then coll.InsertMany(ctx, orders)
	fmt.Println(err, orders[0].ID != 0, orders[0].ID == ids[0], orders[1].ID)
	// Output: <nil> true true 42
}

package mongov1_test

import (
	"bytes"
	"fmt"

	bsonv1 "go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsonrw"

	"github.com/idkit-go/idkit/mongocompat/mongov1"
	"github.com/idkit-go/idkit/types"
)

// The v1 driver needs the codecs of Registry, passed to the client with
// options.Client().SetRegistry(mongov1.Registry()).
func ExampleRegistry() {
	doc := struct {
		ID   types.ObjectID  `bson:"_id"`
		Seq  types.Snowflake `bson:"seq"`
		Name string          `bson:"name"`
	}{types.MustParseObjectID("6592008029c8c3e4dc76256c"), 42, "widget"}
	var buf bytes.Buffer
	vw, _ := bsonrw.NewBSONValueWriter(&buf)
	enc, _ := bsonv1.NewEncoder(vw)
	_ = enc.SetRegistry(mongov1.Registry())
	if err := enc.Encode(doc); err != nil {
		fmt.Println(err)
	}
	raw := bsonv1.Raw(buf.Bytes())
	fmt.Println(raw.Lookup("_id").Type, raw.Lookup("seq").Type)
	// Output: objectID 64-bit integer
}

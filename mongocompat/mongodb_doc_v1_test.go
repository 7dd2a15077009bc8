package mongocompat_test

// The v1 driver's code of docs/mongodb.md (see mongodb_doc_test.go).

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/idkit-go/idkit/mongocompat/mongotest"
	"github.com/idkit-go/idkit/mongocompat/mongov1"
	"github.com/idkit-go/idkit/types"
)

// docV1Setup is the page's "Driver v1" block.
func docV1Setup(ctx context.Context, uri string) (*mongo.Client, error) {
	client, err := mongo.Connect(ctx, options.Client().ApplyURI(uri).SetRegistry(mongov1.Registry()))
	return client, err
}

// docV1ZeroID is the page's v1 error block.
func docV1ZeroID(err error) bool {
	var me mongo.MarshalError
	return errors.As(err, &me) && errors.Is(me.Err, types.ErrZeroID)
}

func TestDocMongoDBV1(t *testing.T) {
	ctx := context.Background()
	client, err := docV1Setup(ctx, mongotest.URI(t))
	require.NoError(t, err)
	db := client.Database(dbName())
	t.Cleanup(func() {
		_ = db.Drop(ctx)
		_ = client.Disconnect(ctx)
	})
	coll := db.Collection("orders")

	order := Order{ID: types.NewObjectID(), Item: "book"}
	_, err = coll.InsertOne(ctx, order)
	require.NoError(t, err)
	raw, err := coll.FindOne(ctx, bson.M{"_id": order.ID}).Raw()
	require.NoError(t, err)
	assert.Equal(t, byte(0x07), byte(raw.Lookup("_id").Type), "a BSON ObjectId")

	_, err = coll.InsertOne(ctx, Order{Item: "pen"})
	assert.True(t, docV1ZeroID(err), "got %v", err)
	n, err := coll.CountDocuments(ctx, bson.M{})
	require.NoError(t, err)
	assert.EqualValues(t, 1, n)
}

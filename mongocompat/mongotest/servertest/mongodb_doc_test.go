package servertest_test

// The Go code of docs/mongodb.md for the v2 driver: every code line of the
// page is a line of this file or of mongodb_doc_v1_test.go (the v1 driver's
// code, whose package names clash with v2's), and TestDocMongoDB runs it
// against the embedded server and checks what is stored.

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/mongocompat"
	"github.com/idkit-go/idkit/mongocompat/mongotest"
	"github.com/idkit-go/idkit/mongocompat/mongov2"
	"github.com/idkit-go/idkit/types"
)

// Order and openOrders are the page's "Driver v2" block.
type Order struct {
	ID   types.ObjectID `bson:"_id"`
	Item string         `bson:"item"`
}

func openOrders(ctx context.Context, uri, name string) (*mongo.Collection, error) {
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		return nil, err
	}
	coll := client.Database(name).Collection("orders")
	_, err = coll.InsertOne(ctx, Order{ID: types.NewObjectID(), Item: "book"})
	return coll, err
}

type Event struct {
	ID   types.Snowflake `bson:"_id"`
	Kind string          `bson:"kind"`
}

// docV2Registry is the page's registry block.
func docV2Registry(uri string) (*mongo.Client, error) {
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetRegistry(mongov2.Registry()))
	return client, err
}

// docZeroID is the page's zero-ID block; it returns the error of the
// plain insert and what the helper stored.
func docZeroID(ctx context.Context, coll *mongo.Collection) (order *Order, plainErr, err error) {
	_, err = coll.InsertOne(ctx, &Order{Item: "pen"}) // no ID: nothing is sent
	if errors.Is(err, types.ErrZeroID) {
		plainErr = err // refused: the document has no key yet
	}
	order = &Order{Item: "pen"}
	res, err := mongov2.InsertOne(ctx, nil, coll, order) // nil: the zero Filler
	if err == nil && res.InsertedID != order.ID {
		err = errors.New("InsertedID differs from order.ID")
	}
	return order, plainErr, err
}

// docFiller is the page's Filler block.
func docFiller(ctx context.Context, coll *mongo.Collection) ([]Event, []any, error) {
	g, err := generator.NewSnowflake(1) // node 1, held by this process alone
	if err != nil {
		return nil, nil, err
	}
	f := mongocompat.NewFiller(mongocompat.WithSnowflake(g))
	events := []Event{{Kind: "signup"}, {Kind: "login"}}
	res, err := mongov2.InsertMany(ctx, f, coll, events) // events[i].ID set before the write
	if err != nil {
		return nil, nil, err
	}
	return events, res.InsertedIDs, nil // types.Snowflake values, as events hold them
}

// docLookup is the page's lookup block: a zero key from a request without
// an id is an error, as in gormplugin, not a query for ObjectId("000…").
func docLookup(ctx context.Context, coll *mongo.Collection, id types.ObjectID) (Order, error) {
	var order Order
	err := coll.FindOne(ctx, bson.M{"_id": id}).Decode(&order)
	return order, err
}

func TestDocMongoDB(t *testing.T) {
	ctx := context.Background()
	name := dbName()
	coll, err := openOrders(ctx, mongotest.URI(t), name)
	require.NoError(t, err)
	t.Cleanup(func() { _ = coll.Database().Drop(ctx) })

	var stored bson.Raw
	stored, err = coll.FindOne(ctx, bson.M{"item": "book"}).Raw()
	require.NoError(t, err)
	assert.Equal(t, bson.TypeObjectID, stored.Lookup("_id").Type)

	client, err := docV2Registry(mongotest.URI(t))
	require.NoError(t, err)
	defer client.Disconnect(ctx)
	var viaReg Order
	require.NoError(t, client.Database(name).Collection("orders").FindOne(ctx, bson.M{"item": "book"}).Decode(&viaReg))
	assert.False(t, viaReg.ID.IsZero())

	order, plainErr, err := docZeroID(ctx, coll)
	require.NoError(t, err)
	assert.ErrorIs(t, plainErr, types.ErrZeroID)
	got, err := docLookup(ctx, coll, order.ID)
	require.NoError(t, err)
	assert.Equal(t, *order, got)
	n, err := coll.CountDocuments(ctx, bson.M{"item": "pen"})
	require.NoError(t, err)
	assert.EqualValues(t, 1, n, "only the helper's insert was stored")

	_, err = docLookup(ctx, coll, types.ObjectID{})
	assert.ErrorIs(t, err, types.ErrZeroID)

	events, ids, err := docFiller(ctx, coll.Database().Collection("events"))
	require.NoError(t, err)
	require.Len(t, ids, 2)
	assert.Equal(t, events[0].ID, ids[0])
	assert.Greater(t, events[1].ID, events[0].ID)
	var e Event
	require.NoError(t, coll.Database().Collection("events").FindOne(ctx, bson.M{"_id": events[1].ID}).Decode(&e))
	assert.Equal(t, events[1], e)
}

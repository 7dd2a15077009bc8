package servertest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/idkit-go/idkit/mongocompat"
	"github.com/idkit-go/idkit/mongocompat/mongotest"
	"github.com/idkit-go/idkit/mongocompat/mongov1"
	"github.com/idkit-go/idkit/types"
)

// collectionV1 connects with the v1 driver and mongov1.Registry and
// returns a collection in a database of its own, dropped when t ends.
func collectionV1(t *testing.T) *mongo.Collection {
	t.Helper()
	ctx := context.Background()
	client, err := mongo.Connect(ctx, options.Client().
		ApplyURI(mongotest.URI(t)).
		SetTimeout(30*time.Second).
		SetRegistry(mongov1.Registry()))
	require.NoError(t, err)
	db := client.Database(dbName())
	t.Cleanup(func() {
		_ = db.Drop(ctx)
		_ = client.Disconnect(ctx)
	})
	return db.Collection("docs")
}

func TestServerV1ObjectID(t *testing.T) {
	ctx := context.Background()
	coll := collectionV1(t)
	ids := timedObjectIDs(t, 4, 3)

	var docs []any
	for _, i := range shuffled(len(ids)) {
		docs = append(docs, &objDoc{ID: ids[i], Name: "doc", Seq: i})
	}
	_, err := mongov1.InsertMany(ctx, nil, coll, docs) // nil: the zero Filler
	require.NoError(t, err)

	t.Run("read as idkit type, server-side sort", func(t *testing.T) {
		cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
		require.NoError(t, err)
		var got []objDoc
		require.NoError(t, cur.All(ctx, &got))
		require.Len(t, got, len(ids))
		for i, d := range got {
			assert.Equal(t, ids[i], d.ID, "position %d", i)
			assert.Equal(t, i, d.Seq)
		}
	})
	t.Run("read as driver ObjectID", func(t *testing.T) {
		var got struct {
			ID primitive.ObjectID `bson:"_id"`
		}
		require.NoError(t, coll.FindOne(ctx, bson.M{"_id": ids[5]}).Decode(&got))
		assert.Equal(t, primitive.ObjectID(ids[5]), got.ID)
		assert.Equal(t, ids[5], types.ObjectID(got.ID))
	})
	t.Run("read as bson.M and raw", func(t *testing.T) {
		var m bson.M
		require.NoError(t, coll.FindOne(ctx, bson.D{{Key: "_id", Value: ids[0]}}).Decode(&m))
		assert.Equal(t, primitive.ObjectID(ids[0]), m["_id"])
		raw, err := coll.FindOne(ctx, bson.M{"_id": &ids[0]}).Raw()
		require.NoError(t, err)
		assert.Equal(t, bson.TypeObjectID, raw.Lookup("_id").Type)
	})
	t.Run("time range", func(t *testing.T) {
		from := types.ObjectIDFromTime(baseTime.Add(1 * time.Second))
		to := types.ObjectIDFromTime(baseTime.Add(3 * time.Second))
		cur, err := coll.Find(ctx, bson.M{"_id": bson.M{"$gte": from, "$lt": to}},
			options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
		require.NoError(t, err)
		var got []objDoc
		require.NoError(t, cur.All(ctx, &got))
		var gotIDs []types.ObjectID
		for _, d := range got {
			gotIDs = append(gotIDs, d.ID)
		}
		assert.Equal(t, ids[3:9], gotIDs)
	})
	t.Run("duplicate key", func(t *testing.T) {
		_, err := mongov1.InsertOne(ctx, nil, coll, &objDoc{ID: ids[2], Name: "again"})
		require.Error(t, err)
		assert.True(t, mongo.IsDuplicateKeyError(err), "got %v", err)
		_, err = mongov1.InsertMany(ctx, nil, coll, []any{&objDoc{ID: ids[3]}})
		assert.True(t, mongo.IsDuplicateKeyError(err), "got %v", err)
	})
}

func TestServerV1FillBeforeInsert(t *testing.T) {
	ctx := context.Background()
	coll := collectionV1(t)
	g, _ := snowflakeGen(t)
	f := mongocompat.NewFiller(mongocompat.WithSnowflake(g))

	one := &objDoc{Name: "one"}
	res, err := mongov1.InsertOne(ctx, f, coll, one)
	require.NoError(t, err)
	require.False(t, one.ID.IsZero())
	assert.Equal(t, one.ID, res.InsertedID, "InsertedID as the document holds it")

	many := []any{&snowDoc{Name: "a"}, snowDoc{Name: "b"}, &snowDoc{ID: 42, Name: "set"}, bson.M{"name": "driver's key"}}
	mres, err := mongov1.InsertMany(ctx, f, coll, many)
	require.NoError(t, err)
	require.Len(t, mres.InsertedIDs, 4)
	assert.Equal(t, []any{many[0].(*snowDoc).ID, many[1].(snowDoc).ID, types.Snowflake(42)}, mres.InsertedIDs[:3])
	assert.IsType(t, primitive.ObjectID{}, mres.InsertedIDs[3], "no idkit _id: the driver's key")
	a, b := many[0].(*snowDoc), many[1].(snowDoc)
	assert.NotZero(t, a.ID)
	assert.Greater(t, b.ID, a.ID, "a struct value in []any is replaced by a filled copy")
	assert.Equal(t, types.Snowflake(42), many[2].(*snowDoc).ID)

	var got snowDoc
	require.NoError(t, coll.FindOne(ctx, bson.M{"_id": b.ID}).Decode(&got))
	assert.Equal(t, b, got)
}

func TestServerV1Snowflake(t *testing.T) {
	ctx := context.Background()
	coll := collectionV1(t)
	g, clock := snowflakeGen(t)
	var ids []types.Snowflake
	for s := range 4 {
		clock.Set(baseTime.Add(time.Duration(s) * time.Second))
		for range 3 {
			id, err := g.Next()
			require.NoError(t, err)
			ids = append(ids, id)
		}
	}
	var docs []any
	for _, i := range shuffled(len(ids)) {
		docs = append(docs, snowDoc{ID: ids[i], Seq: i})
	}
	_, err := coll.InsertMany(ctx, docs)
	require.NoError(t, err)

	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	require.NoError(t, err)
	var got []snowDoc
	require.NoError(t, cur.All(ctx, &got))
	require.Len(t, got, len(ids))
	for i, d := range got {
		assert.Equal(t, ids[i], d.ID, "position %d", i)
	}

	var m bson.M
	require.NoError(t, coll.FindOne(ctx, bson.M{"_id": ids[4]}).Decode(&m))
	assert.Equal(t, int64(ids[4]), m["_id"], "stored as BSON int64")

	from, err := layoutMinID(baseTime.Add(time.Second))
	require.NoError(t, err)
	to, err := layoutMinID(baseTime.Add(3 * time.Second))
	require.NoError(t, err)
	n, err := coll.CountDocuments(ctx, bson.M{"_id": bson.M{"$gte": from, "$lt": to}})
	require.NoError(t, err)
	assert.EqualValues(t, 6, n)

	_, err = coll.InsertOne(ctx, snowDoc{ID: ids[0]})
	assert.True(t, mongo.IsDuplicateKeyError(err), "got %v", err)
}

func TestServerV1Null(t *testing.T) {
	ctx := context.Background()
	coll := collectionV1(t)
	alias := types.NewObjectID()
	docs := []any{
		nullDoc{ID: types.NewObjectID()},
		nullDoc{ID: types.NewObjectID(), Parent: types.NullObjectID{ID: alias, Valid: true}, Ref: types.NullSnowflake{ID: 7, Valid: true}, Alias: &alias},
	}
	_, err := coll.InsertMany(ctx, docs)
	require.NoError(t, err)
	for _, d := range docs {
		want := d.(nullDoc)
		got := nullDoc{Parent: types.NullObjectID{ID: types.NewObjectID(), Valid: true}, Ref: types.NullSnowflake{ID: 9, Valid: true}}
		require.NoError(t, coll.FindOne(ctx, bson.M{"_id": want.ID}).Decode(&got))
		assert.Equal(t, want, got)

		var m bson.M
		require.NoError(t, coll.FindOne(ctx, bson.M{"_id": want.ID}).Decode(&m))
		if want.Parent.Valid {
			assert.Equal(t, primitive.ObjectID(alias), m["parent"])
			assert.Equal(t, int64(7), m["ref"])
		} else {
			assert.Contains(t, m, "parent", "NULL is stored as BSON null")
			assert.Nil(t, m["parent"])
			assert.Nil(t, m["ref"])
			assert.Nil(t, m["alias"])
		}
	}
	n, err := coll.CountDocuments(ctx, bson.M{"ref": nil})
	require.NoError(t, err)
	assert.EqualValues(t, 1, n)
}

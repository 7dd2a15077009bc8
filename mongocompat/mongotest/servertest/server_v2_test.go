package servertest_test

import (
	"context"
	"testing"
	"time"

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

// collectionV2 connects with the v2 driver's default registry (idkit types
// need no registration) and returns a collection in a database of its own,
// dropped when t ends.
func collectionV2(t *testing.T, opts ...*options.ClientOptions) *mongo.Collection {
	t.Helper()
	o := options.Client().ApplyURI(mongotest.URI(t)).SetTimeout(30 * time.Second)
	if len(opts) > 0 {
		o = opts[0].ApplyURI(mongotest.URI(t)).SetTimeout(30 * time.Second)
	}
	client, err := mongo.Connect(o)
	require.NoError(t, err)
	db := client.Database(dbName())
	t.Cleanup(func() {
		ctx := context.Background()
		_ = db.Drop(ctx)
		_ = client.Disconnect(ctx)
	})
	return db.Collection("docs")
}

func TestServerV2ObjectID(t *testing.T) {
	ctx := context.Background()
	coll := collectionV2(t)
	ids := timedObjectIDs(t, 4, 3)

	// Insert out of generation order through mongov2.InsertMany, which must keep
	// the keys already set.
	var docs []any
	for _, i := range shuffled(len(ids)) {
		docs = append(docs, &objDoc{ID: ids[i], Name: "doc", Seq: i})
	}
	_, err := mongov2.InsertMany(ctx, nil, coll, docs) // nil: the zero Filler
	require.NoError(t, err)
	for k, i := range shuffled(len(ids)) {
		require.Equal(t, ids[i], docs[k].(*objDoc).ID, "a set key was overwritten")
	}

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
			ID bson.ObjectID `bson:"_id"`
		}
		require.NoError(t, coll.FindOne(ctx, bson.M{"_id": ids[5]}).Decode(&got))
		assert.Equal(t, bson.ObjectID(ids[5]), got.ID)
		assert.Equal(t, ids[5], types.ObjectID(got.ID))
	})
	t.Run("read as bson.M and raw", func(t *testing.T) {
		var m bson.M
		require.NoError(t, coll.FindOne(ctx, bson.D{{Key: "_id", Value: ids[0]}}).Decode(&m))
		assert.Equal(t, bson.ObjectID(ids[0]), m["_id"])
		raw, err := coll.FindOne(ctx, bson.M{"_id": &ids[0]}).Raw()
		require.NoError(t, err)
		assert.Equal(t, bson.TypeObjectID, raw.Lookup("_id").Type)
	})
	t.Run("filter by driver ObjectID finds idkit key", func(t *testing.T) {
		n, err := coll.CountDocuments(ctx, bson.M{"_id": bson.ObjectID(ids[7])})
		require.NoError(t, err)
		assert.EqualValues(t, 1, n)
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
		assert.Equal(t, ids[3:9], gotIDs) // seconds 1 and 2, three IDs each
	})
	t.Run("duplicate key", func(t *testing.T) {
		_, err := mongov2.InsertOne(ctx, nil, coll, &objDoc{ID: ids[2], Name: "again"})
		require.Error(t, err)
		assert.True(t, mongo.IsDuplicateKeyError(err), "got %v", err)
	})
}

func TestServerV2FillBeforeInsert(t *testing.T) {
	ctx := context.Background()
	coll := collectionV2(t)
	g, _ := snowflakeGen(t)
	f := mongocompat.NewFiller(mongocompat.WithSnowflake(g))

	one := objDoc{Name: "one"}
	res, err := mongov2.InsertOne(ctx, f, coll, &one)
	require.NoError(t, err)
	require.False(t, one.ID.IsZero(), "key filled before the write")
	assert.Equal(t, one.ID, res.InsertedID, "InsertedID as the document holds it")

	many := []snowDoc{{Name: "a"}, {Name: "b"}, {ID: 42, Name: "set"}}
	_, err = mongov2.InsertMany(ctx, f, coll, many)
	require.NoError(t, err)
	assert.NotZero(t, many[0].ID)
	assert.Greater(t, many[1].ID, many[0].ID)
	assert.Equal(t, types.Snowflake(42), many[2].ID, "a set key was overwritten")

	var got snowDoc
	require.NoError(t, coll.FindOne(ctx, bson.M{"_id": many[1].ID}).Decode(&got))
	assert.Equal(t, many[1], got)

	_, err = mongov2.InsertOne(ctx, nil, coll, &snowDoc{Name: "no generator"})
	assert.ErrorIs(t, err, generator.ErrNoSnowflakeGenerator)
}

// mongov2.InsertMany's InsertedIDs hold the keys as the documents hold them
// (types.ObjectID, types.Snowflake), and the driver's value for documents
// without an idkit _id.
func TestServerV2InsertedIDs(t *testing.T) {
	ctx := context.Background()
	coll := collectionV2(t)
	g, _ := snowflakeGen(t)
	f := mongocompat.NewFiller(mongocompat.WithSnowflake(g))

	objs := []objDoc{{Name: "a"}, {Name: "b"}}
	res, err := mongov2.InsertMany(ctx, f, coll, objs)
	require.NoError(t, err)
	assert.Equal(t, []any{objs[0].ID, objs[1].ID}, res.InsertedIDs)

	mixed := []any{&snowDoc{Name: "s"}, bson.M{"name": "driver's key"}}
	res, err = mongov2.InsertMany(ctx, f, coll, mixed)
	require.NoError(t, err)
	require.Len(t, res.InsertedIDs, 2)
	assert.Equal(t, mixed[0].(*snowDoc).ID, res.InsertedIDs[0])
	assert.IsType(t, bson.ObjectID{}, res.InsertedIDs[1], "no idkit _id: the driver's key")

	var got objDoc
	require.NoError(t, coll.FindOne(ctx, bson.M{"_id": res.InsertedIDs[0]}).Decode(&snowDoc{}))
	require.NoError(t, coll.FindOne(ctx, bson.M{"_id": objs[1].ID}).Decode(&got))
	assert.Equal(t, objs[1], got)
}

func TestServerV2Snowflake(t *testing.T) {
	ctx := context.Background()
	coll := collectionV2(t)
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

func TestServerV2Null(t *testing.T) {
	ctx := context.Background()
	coll := collectionV2(t)
	alias := types.NewObjectID()
	docs := []nullDoc{
		{ID: types.NewObjectID()},
		{ID: types.NewObjectID(), Parent: types.NullObjectID{ID: alias, Valid: true}, Ref: types.NullSnowflake{ID: 7, Valid: true}, Alias: &alias},
	}
	_, err := coll.InsertMany(ctx, docs)
	require.NoError(t, err)
	for _, want := range docs {
		got := nullDoc{Parent: types.NullObjectID{ID: types.NewObjectID(), Valid: true}, Ref: types.NullSnowflake{ID: 9, Valid: true}}
		require.NoError(t, coll.FindOne(ctx, bson.M{"_id": want.ID}).Decode(&got))
		assert.Equal(t, want, got)

		var m bson.M
		require.NoError(t, coll.FindOne(ctx, bson.M{"_id": want.ID}).Decode(&m))
		if want.Parent.Valid {
			assert.Equal(t, bson.ObjectID(alias), m["parent"])
			assert.Equal(t, int64(7), m["ref"])
		} else {
			assert.Nil(t, m["parent"])
			assert.Contains(t, m, "parent", "NULL is stored as BSON null")
			assert.Nil(t, m["ref"])
			assert.Nil(t, m["alias"])
		}
	}
	n, err := coll.CountDocuments(ctx, bson.M{"parent": nil})
	require.NoError(t, err)
	assert.EqualValues(t, 1, n)
}

func TestServerV2Registry(t *testing.T) {
	ctx := context.Background()
	reg := mongov2.Registry()
	mongov2.MapObjectIDs(reg)
	coll := collectionV2(t, options.Client().SetRegistry(reg))
	doc := objDoc{ID: types.NewObjectID(), Name: "registry"}
	_, err := coll.InsertOne(ctx, doc)
	require.NoError(t, err)

	var got objDoc
	require.NoError(t, coll.FindOne(ctx, bson.M{"_id": doc.ID}).Decode(&got))
	assert.Equal(t, doc, got)
	var m bson.M
	require.NoError(t, coll.FindOne(ctx, bson.M{"_id": doc.ID}).Decode(&m))
	assert.Equal(t, doc.ID, m["_id"], "interface values decode as types.ObjectID")
	raw, err := coll.FindOne(ctx, bson.M{"_id": doc.ID}).Raw()
	require.NoError(t, err)
	assert.Equal(t, bson.TypeObjectID, raw.Lookup("_id").Type)
}

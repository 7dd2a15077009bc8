package servertest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	mongov1driver "go.mongodb.org/mongo-driver/mongo"
	optionsv1 "go.mongodb.org/mongo-driver/mongo/options"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/idkit-go/idkit/mongocompat"
	"github.com/idkit-go/idkit/mongocompat/mongotest"
	"github.com/idkit-go/idkit/mongocompat/mongov1"
	"github.com/idkit-go/idkit/mongocompat/mongov2"
	"github.com/idkit-go/idkit/types"
)

// zeroSetup runs the calls of one driver setup against a collection of its
// own. Filters and updates are bson.M (a map), which both drivers encode.
type zeroSetup struct {
	name       string
	insertOne  func(ctx context.Context, doc any) error
	insertMany func(ctx context.Context, docs []any) error
	count      func(ctx context.Context, filter bson.M) (int64, error)
	find       func(ctx context.Context, filter bson.M) error
	update     func(ctx context.Context, filter, update bson.M) error
	findOne    func(ctx context.Context, filter bson.M, out any) error
	// The fill-then-insert helpers; they return InsertedID(s).
	helperOne  func(ctx context.Context, f *mongocompat.Filler, doc any) (any, error)
	helperMany func(ctx context.Context, f *mongocompat.Filler, docs []any) ([]any, error)
}

// zeroSetups returns the v2 driver with nothing registered and with
// mongov2.Registry, and the v1 driver with mongov1.Registry, each on a
// database of its own.
func zeroSetups(t *testing.T) []zeroSetup {
	return []zeroSetup{
		zeroSetupV2(t, "v2/no registration", options.Client()),
		zeroSetupV2(t, "v2/mongov2.Registry", options.Client().SetRegistry(mongov2.Registry())),
		zeroSetupV1(t),
	}
}

func zeroSetupV2(t *testing.T, name string, o *options.ClientOptions) zeroSetup {
	coll := collectionV2(t, o)
	return zeroSetup{
		name: name,
		insertOne: func(ctx context.Context, doc any) error {
			_, err := coll.InsertOne(ctx, doc)
			return err
		},
		insertMany: func(ctx context.Context, docs []any) error {
			_, err := coll.InsertMany(ctx, docs)
			return err
		},
		count: func(ctx context.Context, filter bson.M) (int64, error) { return coll.CountDocuments(ctx, filter) },
		find: func(ctx context.Context, filter bson.M) error {
			cur, err := coll.Find(ctx, filter)
			if err == nil {
				err = cur.Close(ctx)
			}
			return err
		},
		update: func(ctx context.Context, filter, update bson.M) error {
			_, err := coll.UpdateMany(ctx, filter, update)
			return err
		},
		findOne: func(ctx context.Context, filter bson.M, out any) error { return coll.FindOne(ctx, filter).Decode(out) },
		helperOne: func(ctx context.Context, f *mongocompat.Filler, doc any) (any, error) {
			res, err := mongov2.InsertOne(ctx, f, coll, doc)
			if err != nil {
				return nil, err
			}
			return res.InsertedID, nil
		},
		helperMany: func(ctx context.Context, f *mongocompat.Filler, docs []any) ([]any, error) {
			res, err := mongov2.InsertMany(ctx, f, coll, docs)
			if err != nil {
				return nil, err
			}
			return res.InsertedIDs, nil
		},
	}
}

func zeroSetupV1(t *testing.T) zeroSetup {
	ctx := context.Background()
	client, err := mongov1driver.Connect(ctx, optionsv1.Client().
		ApplyURI(mongotest.URI(t)).
		SetTimeout(30*time.Second).
		SetRegistry(mongov1.Registry()))
	require.NoError(t, err)
	db := client.Database(dbName())
	t.Cleanup(func() {
		_ = db.Drop(ctx)
		_ = client.Disconnect(ctx)
	})
	coll := db.Collection("docs")
	return zeroSetup{
		name: "v1/mongov1.Registry",
		insertOne: func(ctx context.Context, doc any) error {
			_, err := coll.InsertOne(ctx, doc)
			return v1Err(err)
		},
		insertMany: func(ctx context.Context, docs []any) error {
			_, err := coll.InsertMany(ctx, docs)
			return v1Err(err)
		},
		count: func(ctx context.Context, filter bson.M) (int64, error) {
			n, err := coll.CountDocuments(ctx, filter)
			return n, v1Err(err)
		},
		find: func(ctx context.Context, filter bson.M) error {
			cur, err := coll.Find(ctx, filter)
			if err == nil {
				err = cur.Close(ctx)
			}
			return v1Err(err)
		},
		update: func(ctx context.Context, filter, update bson.M) error {
			_, err := coll.UpdateMany(ctx, filter, update)
			return v1Err(err)
		},
		findOne: func(ctx context.Context, filter bson.M, out any) error { return coll.FindOne(ctx, filter).Decode(out) },
		helperOne: func(ctx context.Context, f *mongocompat.Filler, doc any) (any, error) {
			res, err := mongov1.InsertOne(ctx, f, coll, doc)
			if err != nil {
				return nil, err
			}
			return res.InsertedID, nil
		},
		helperMany: func(ctx context.Context, f *mongocompat.Filler, docs []any) ([]any, error) {
			res, err := mongov1.InsertMany(ctx, f, coll, docs)
			if err != nil {
				return nil, err
			}
			return res.InsertedIDs, nil
		},
	}
}

// v1Err returns the error a v1 driver call wrapped in mongo.MarshalError,
// which has no Unwrap method in v1.17.10 (v2's has), so errors.Is does not
// see through it; see TestServerV1MarshalError.
func v1Err(err error) error {
	var me mongov1driver.MarshalError
	if errors.As(err, &me) {
		return me.Err
	}
	return err
}

// The v1 driver hides a marshalling error behind mongo.MarshalError, which
// errors.Is does not see through; the error is its Err field. The mongov1
// Insert helpers return errors that errors.Is and errors.As both see
// through.
func TestServerV1MarshalError(t *testing.T) {
	ctx := context.Background()
	coll := collectionV1(t)
	type refDoc struct {
		ID     types.ObjectID `bson:"_id"`
		Parent types.ObjectID `bson:"parent"`
	}
	_, err := coll.InsertOne(ctx, &refDoc{ID: types.NewObjectID()})
	var me mongov1driver.MarshalError
	require.ErrorAs(t, err, &me)
	assert.ErrorIs(t, me.Err, types.ErrZeroID)

	for _, insert := range []func() error{
		func() error { _, err := mongov1.InsertOne(ctx, nil, coll, &refDoc{}); return err },
		func() error { _, err := mongov1.InsertMany(ctx, nil, coll, []any{&refDoc{}}); return err },
	} {
		err := insert()
		assert.ErrorIs(t, err, types.ErrZeroID)
		assert.ErrorAs(t, err, &me)
		assert.Contains(t, err.Error(), "cannot marshal type")
	}
	n, err := coll.CountDocuments(ctx, bson.M{})
	require.NoError(t, err)
	assert.Zero(t, n)
}

// Issue 20 §5: a plain InsertOne of a document whose idkit _id is zero
// used to store ObjectId("000…") or 0, and the next one failed with
// E11000. Now every write of a zero ObjectID or Snowflake fails with an
// error wrapping types.ErrZeroID and stores nothing, on both drivers; the
// Insert helpers fill the key first and the document holds what is stored.
func TestServerZeroIDNeverStored(t *testing.T) {
	ctx := context.Background()
	zero := types.ObjectID{}
	type refDoc struct {
		ID     types.ObjectID  `bson:"_id"`
		Parent types.ObjectID  `bson:"parent"`
		Seq    types.Snowflake `bson:"seq"`
	}
	type nullSnowKey struct {
		ID types.NullSnowflake `bson:"_id"`
	}
	type ptrKey struct {
		ID *types.ObjectID `bson:"_id"`
	}
	for _, s := range zeroSetups(t) {
		t.Run(s.name, func(t *testing.T) {
			all := func() int64 {
				t.Helper()
				n, err := s.count(ctx, bson.M{})
				require.NoError(t, err)
				return n
			}

			t.Run("zero _id refused, nothing stored", func(t *testing.T) {
				for _, doc := range []any{
					&objDoc{Name: "no key"},
					objDoc{Name: "by value"},
					&snowDoc{Name: "no key"},
					&nullIDDoc{ID: types.NullObjectID{ID: zero, Valid: true}},
					&nullSnowKey{ID: types.NullSnowflake{ID: 0, Valid: true}},
					&ptrKey{ID: &zero},
				} {
					for range 2 { // the second insert used to fail with E11000
						err := s.insertOne(ctx, doc)
						require.ErrorIs(t, err, types.ErrZeroID, "%T", doc)
						assert.False(t, mongo.IsDuplicateKeyError(err))
					}
				}
				assert.Zero(t, all())
			})
			t.Run("zero in another field refused", func(t *testing.T) {
				require.ErrorIs(t, s.insertOne(ctx, &refDoc{ID: types.NewObjectID(), Seq: 1}), types.ErrZeroID)
				require.ErrorIs(t, s.insertOne(ctx, &refDoc{ID: types.NewObjectID(), Parent: types.NewObjectID()}), types.ErrZeroID)
				assert.Zero(t, all())
			})
			t.Run("InsertMany with one zero key stores none", func(t *testing.T) {
				err := s.insertMany(ctx, []any{&objDoc{ID: types.NewObjectID()}, &objDoc{}})
				require.ErrorIs(t, err, types.ErrZeroID)
				assert.Zero(t, all())
			})
			t.Run("zero in a filter or update", func(t *testing.T) {
				_, err := s.count(ctx, bson.M{"_id": zero})
				assert.ErrorIs(t, err, types.ErrZeroID)
				assert.ErrorIs(t, s.find(ctx, bson.M{"_id": types.Snowflake(0)}), types.ErrZeroID)
				assert.ErrorIs(t, s.find(ctx, bson.M{"_id": bson.M{"$in": []any{types.NewObjectID(), zero}}}), types.ErrZeroID)
				assert.ErrorIs(t, s.update(ctx, bson.M{}, bson.M{"$set": bson.M{"parent": zero}}), types.ErrZeroID)
			})

			t.Run("helpers fill the key the document then holds", func(t *testing.T) {
				g, _ := snowflakeGen(t)
				f := mongocompat.NewFiller(mongocompat.WithSnowflake(g))

				o := &objDoc{Name: "o"}
				id, err := s.helperOne(ctx, nil, o) // nil: the zero Filler
				require.NoError(t, err)
				require.False(t, o.ID.IsZero())
				assert.Equal(t, o.ID, id)
				var got objDoc
				require.NoError(t, s.findOne(ctx, bson.M{"_id": o.ID}, &got))
				assert.Equal(t, *o, got)

				n := &nullIDDoc{} // NULL key: filled, never stored as null
				_, err = s.helperOne(ctx, nil, n)
				require.NoError(t, err)
				require.True(t, n.ID.Valid)
				var gotN nullIDDoc
				require.NoError(t, s.findOne(ctx, bson.M{"_id": n.ID.ID}, &gotN))
				assert.Equal(t, *n, gotN)

				docs := []any{&snowDoc{Name: "a"}, &snowDoc{Name: "b"}, &objDoc{Name: "c"}}
				ids, err := s.helperMany(ctx, f, docs)
				require.NoError(t, err)
				require.Len(t, ids, 3)
				for i, want := range []any{docs[0].(*snowDoc).ID, docs[1].(*snowDoc).ID, docs[2].(*objDoc).ID} {
					assert.Equal(t, want, ids[i])
					assert.False(t, want.(interface{ IsZero() bool }).IsZero(), "document %d", i)
				}
				var gotS snowDoc
				require.NoError(t, s.findOne(ctx, bson.M{"_id": docs[1].(*snowDoc).ID}, &gotS))
				assert.Equal(t, *docs[1].(*snowDoc), gotS)
				assert.EqualValues(t, 5, all())

				n0, err := s.count(ctx, bson.M{"_id": bson.M{"$in": []any{bson.ObjectID{}, int64(0), nil}}})
				require.NoError(t, err)
				assert.Zero(t, n0, "no zero or null key stored")
			})
		})
	}
}

// docs/mongodb.md: an invalid Null form is NULL and is written as BSON
// null wherever it is, _id included, because MarshalBSONValue cannot tell
// a key from another field; a plain InsertOne of a NULL key stores
// _id: null (once). The Insert helpers fill it instead (see above).
func TestServerNullKeyPlainInsert(t *testing.T) {
	ctx := context.Background()
	coll := collectionV2(t)
	_, err := coll.InsertOne(ctx, &nullIDDoc{})
	require.NoError(t, err)
	n, err := coll.CountDocuments(ctx, bson.M{"_id": nil})
	require.NoError(t, err)
	assert.EqualValues(t, 1, n)
	_, err = coll.InsertOne(ctx, &nullIDDoc{})
	assert.True(t, mongo.IsDuplicateKeyError(err), "got %v", err)
}

// nullIDDoc has a nullable ObjectID key (mongocompat's fill tests use one
// of the same shape).
type nullIDDoc struct {
	ID types.NullObjectID `bson:"_id"`
}

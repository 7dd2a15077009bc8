package servertest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bsonv1 "go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/idkit-go/idkit/mongocompat"
	"github.com/idkit-go/idkit/mongocompat/mongov1"
	"github.com/idkit-go/idkit/mongocompat/mongov2"
	"github.com/idkit-go/idkit/types"
)

// uuidDoc is keyed by a UUID and refers to another by a nullable UUID.
type uuidDoc struct {
	ID   types.UUID     `bson:"_id"`
	Ref  types.NullUUID `bson:"ref"`
	Name string         `bson:"name"`
}

// storedUUID is a UUID field as the server holds it.
type storedUUID struct {
	typ     byte // BSON type
	subtype byte
	data    []byte
}

// uuidDriver is the part of a driver setup the UUID test uses.
type uuidDriver struct {
	name       string
	insertOne  func(ctx context.Context, doc any) error
	helperOne  func(ctx context.Context, f *mongocompat.Filler, doc any) (any, error)
	helperMany func(ctx context.Context, f *mongocompat.Filler, docs []any) ([]any, error)
	findOne    func(ctx context.Context, filter any, out any) error
	count      func(ctx context.Context, filter any) (int64, error)
	stored     func(ctx context.Context, id types.UUID, key string) storedUUID
}

func uuidDriverV2(t *testing.T, name string, o *options.ClientOptions) uuidDriver {
	coll := collectionV2(t, o)
	return uuidDriver{
		name:      name,
		insertOne: func(ctx context.Context, doc any) error { _, err := coll.InsertOne(ctx, doc); return err },
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
		findOne: func(ctx context.Context, filter, out any) error { return coll.FindOne(ctx, filter).Decode(out) },
		count:   func(ctx context.Context, filter any) (int64, error) { return coll.CountDocuments(ctx, filter) },
		stored: func(ctx context.Context, id types.UUID, key string) storedUUID {
			raw, err := coll.FindOne(ctx, bson.M{"_id": id}).Raw()
			require.NoError(t, err)
			v := raw.Lookup(key)
			s := storedUUID{typ: byte(v.Type)}
			if v.Type == bson.TypeBinary {
				s.subtype, s.data = v.Binary()
			}
			return s
		},
	}
}

func uuidDriverV1(t *testing.T) uuidDriver {
	coll := collectionV1(t)
	return uuidDriver{
		name:      "v1/mongov1.Registry",
		insertOne: func(ctx context.Context, doc any) error { _, err := coll.InsertOne(ctx, doc); return v1Err(err) },
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
		findOne: func(ctx context.Context, filter, out any) error { return coll.FindOne(ctx, filter).Decode(out) },
		count: func(ctx context.Context, filter any) (int64, error) {
			n, err := coll.CountDocuments(ctx, filter)
			return n, v1Err(err)
		},
		stored: func(ctx context.Context, id types.UUID, key string) storedUUID {
			raw, err := coll.FindOne(ctx, bsonv1.M{"_id": id}).Raw()
			require.NoError(t, err)
			v := raw.Lookup(key)
			s := storedUUID{typ: byte(v.Type)}
			if v.Type == bsonv1.TypeBinary {
				s.subtype, s.data = v.Binary()
			}
			return s
		},
	}
}

// TestServerUUID stores UUID-keyed documents through both drivers (v2 with
// no registration and with mongov2.Registry, v1 with mongov1.Registry) and
// checks what the server holds: _id as binary subtype 4, an unset
// NullUUID as null, never a zero UUID.
func TestServerUUID(t *testing.T) {
	for _, d := range []uuidDriver{
		uuidDriverV2(t, "v2/no registration", options.Client()),
		uuidDriverV2(t, "v2/mongov2.Registry", options.Client().SetRegistry(mongov2.Registry())),
		uuidDriverV1(t),
	} {
		t.Run(d.name, func(t *testing.T) {
			ctx := context.Background()
			f := mongocompat.NewFiller()

			// The Filler fills a zero UUID _id; the document holds what is stored.
			first := &uuidDoc{Name: "first"}
			id, err := d.helperOne(ctx, f, first)
			require.NoError(t, err)
			require.False(t, first.ID.IsZero())
			assert.Equal(t, first.ID, id)
			assert.EqualValues(t, 7, first.ID[6]>>4)

			docs := []any{&uuidDoc{Name: "a", Ref: types.NullUUID{ID: first.ID, Valid: true}}, &uuidDoc{Name: "b"}}
			ids, err := d.helperMany(ctx, f, docs)
			require.NoError(t, err)
			require.Len(t, ids, 2)
			a, b := docs[0].(*uuidDoc), docs[1].(*uuidDoc)
			assert.Equal(t, []any{a.ID, b.ID}, ids)

			// A set UUID is kept; a plain insert of one works with no helper.
			given := uuidDoc{ID: types.NewUUIDv7(), Name: "given"}
			require.NoError(t, d.insertOne(ctx, &given))

			// Stored forms: binary subtype 4 of the ID's 16 bytes; null for
			// an unset NullUUID.
			for _, doc := range []*uuidDoc{first, a, b, &given} {
				s := d.stored(ctx, doc.ID, "_id")
				assert.Equal(t, storedUUID{0x05, 4, doc.ID[:]}, s, doc.Name)
			}
			assert.Equal(t, storedUUID{0x05, 4, first.ID[:]}, d.stored(ctx, a.ID, "ref"))
			assert.Equal(t, storedUUID{typ: 0x0A}, d.stored(ctx, b.ID, "ref"))

			// A zero UUID is never stored, as _id or elsewhere.
			err = d.insertOne(ctx, &uuidDoc{Name: "zero"})
			assert.True(t, errors.Is(err, types.ErrZeroID), "%v", err)
			err = d.insertOne(ctx, &uuidDoc{ID: types.NewUUIDv7(), Name: "zero ref", Ref: types.NullUUID{Valid: true}})
			assert.True(t, errors.Is(err, types.ErrZeroID), "%v", err)
			n, err := d.count(ctx, bson.M{})
			require.NoError(t, err)
			assert.EqualValues(t, 4, n)

			// Read back, by key and by reference.
			var got uuidDoc
			require.NoError(t, d.findOne(ctx, bson.M{"_id": a.ID}, &got))
			assert.Equal(t, *a, got)
			got = uuidDoc{Ref: types.NullUUID{ID: a.ID, Valid: true}}
			require.NoError(t, d.findOne(ctx, bson.M{"_id": b.ID}, &got))
			assert.Equal(t, *b, got, "null resets the NullUUID")
			n, err = d.count(ctx, bson.M{"ref": first.ID})
			require.NoError(t, err)
			assert.EqualValues(t, 1, n)
			// Range by time: every document was made after this bound.
			from := types.UUIDv7FromTime(first.ID.Time())
			n, err = d.count(ctx, bson.M{"_id": bson.M{"$gte": from}})
			require.NoError(t, err)
			assert.EqualValues(t, 4, n)
		})
	}
}

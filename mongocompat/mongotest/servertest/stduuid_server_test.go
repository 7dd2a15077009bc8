//go:build go1.27

package servertest_test

import (
	"context"
	"errors"
	"testing"
	"time"
	"uuid"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bsonv1 "go.mongodb.org/mongo-driver/bson"
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

// stdUUIDDoc is keyed by Go's uuid.UUID and refers to another by a
// *uuid.UUID.
type stdUUIDDoc struct {
	ID   uuid.UUID  `bson:"_id"`
	Ref  *uuid.UUID `bson:"ref"`
	Name string     `bson:"name"`
}

// stdUUIDStore is one driver setup: insert, find, and the raw _id and ref
// the server holds.
type stdUUIDStore struct {
	name    string
	subtype byte // the binary subtype this setup stores
	insert  func(ctx context.Context, f *mongocompat.Filler, doc *stdUUIDDoc) error
	find    func(ctx context.Context, id uuid.UUID) (stdUUIDDoc, error)
	raw     func(ctx context.Context, id uuid.UUID, key string) (typ, subtype byte, data []byte)
	insertZ func(ctx context.Context, doc *stdUUIDDoc) error // a plain InsertOne
}

func stdUUIDStoreV2(t *testing.T, name string, o *options.ClientOptions, subtype byte) stdUUIDStore {
	coll := collectionV2(t, o)
	return stdUUIDStore{
		name: name, subtype: subtype,
		insert: func(ctx context.Context, f *mongocompat.Filler, doc *stdUUIDDoc) error {
			_, err := mongov2.InsertOne(ctx, f, coll, doc)
			return err
		},
		find: func(ctx context.Context, id uuid.UUID) (d stdUUIDDoc, err error) {
			return d, coll.FindOne(ctx, bson.M{"_id": id}).Decode(&d)
		},
		raw: func(ctx context.Context, id uuid.UUID, key string) (byte, byte, []byte) {
			raw, err := coll.FindOne(ctx, bson.M{"_id": id}).Raw()
			require.NoError(t, err)
			v := raw.Lookup(key)
			if v.Type != bson.TypeBinary {
				return byte(v.Type), 0, nil
			}
			s, b := v.Binary()
			return byte(v.Type), s, b
		},
		insertZ: func(ctx context.Context, doc *stdUUIDDoc) error { _, err := coll.InsertOne(ctx, doc); return err },
	}
}

func stdUUIDStoreV1(t *testing.T, name string, registry bool, subtype byte) stdUUIDStore {
	ctx := context.Background()
	o := optionsv1.Client().ApplyURI(mongotest.URI(t)).SetTimeout(30 * time.Second)
	if registry {
		o.SetRegistry(mongov1.Registry())
	}
	client, err := mongov1driver.Connect(ctx, o)
	require.NoError(t, err)
	db := client.Database(dbName())
	t.Cleanup(func() {
		_ = db.Drop(ctx)
		_ = client.Disconnect(ctx)
	})
	coll := db.Collection("docs")
	return stdUUIDStore{
		name: name, subtype: subtype,
		insert: func(ctx context.Context, f *mongocompat.Filler, doc *stdUUIDDoc) error {
			_, err := mongov1.InsertOne(ctx, f, coll, doc)
			return err
		},
		find: func(ctx context.Context, id uuid.UUID) (d stdUUIDDoc, err error) {
			return d, coll.FindOne(ctx, bsonv1.M{"_id": id}).Decode(&d)
		},
		raw: func(ctx context.Context, id uuid.UUID, key string) (byte, byte, []byte) {
			raw, err := coll.FindOne(ctx, bsonv1.M{"_id": id}).Raw()
			require.NoError(t, err)
			v := raw.Lookup(key)
			if v.Type != bsonv1.TypeBinary {
				return byte(v.Type), 0, nil
			}
			s, b := v.Binary()
			return byte(v.Type), s, b
		},
		insertZ: func(ctx context.Context, doc *stdUUIDDoc) error {
			_, err := coll.InsertOne(ctx, doc)
			return v1Err(err)
		},
	}
}

// TestServerStdUUID stores documents keyed by Go's uuid.UUID through both
// drivers, with and without idkit's registry, and checks what the server
// holds: generic binary (subtype 0) with no registry, MongoDB's UUID
// (binary subtype 4) with it; the Filler fills a zero key either way.
func TestServerStdUUID(t *testing.T) {
	for _, s := range []stdUUIDStore{
		stdUUIDStoreV2(t, "v2/no registry", options.Client(), 0),
		stdUUIDStoreV2(t, "v2/mongov2.Registry", options.Client().SetRegistry(mongov2.Registry()), 4),
		stdUUIDStoreV1(t, "v1/no registry", false, 0),
		stdUUIDStoreV1(t, "v1/mongov1.Registry", true, 4),
	} {
		t.Run(s.name, func(t *testing.T) {
			ctx := context.Background()
			f := mongocompat.NewFiller()

			first := &stdUUIDDoc{Name: "first"}
			require.NoError(t, s.insert(ctx, f, first))
			require.NotEqual(t, uuid.Nil(), first.ID, "the Filler fills a zero uuid.UUID _id")
			assert.EqualValues(t, 7, first.ID[6]>>4)

			set := uuid.NewV4()
			second := &stdUUIDDoc{ID: set, Ref: &first.ID, Name: "second"}
			require.NoError(t, s.insert(ctx, f, second))
			assert.Equal(t, set, second.ID, "a set key is kept")

			typ, sub, data := s.raw(ctx, first.ID, "_id")
			assert.Equal(t, []any{byte(0x05), s.subtype, first.ID[:]}, []any{typ, sub, data}, "stored _id")
			typ, sub, data = s.raw(ctx, set, "ref")
			assert.Equal(t, []any{byte(0x05), s.subtype, first.ID[:]}, []any{typ, sub, data}, "stored ref")
			typ, _, _ = s.raw(ctx, first.ID, "ref")
			assert.Equal(t, byte(0x0A), typ, "a nil *uuid.UUID is null")

			got, err := s.find(ctx, set)
			require.NoError(t, err)
			assert.Equal(t, *second, got)
			got, err = s.find(ctx, first.ID)
			require.NoError(t, err)
			assert.Equal(t, *first, got)

			if s.subtype == 4 {
				err := s.insertZ(ctx, &stdUUIDDoc{Name: "zero"})
				assert.True(t, errors.Is(err, types.ErrZeroID), "a nil uuid.UUID with the registry: %v", err)
			}
		})
	}
}

// TestServerStdUUIDReadsUnregistered reads with mongov2.Registry a
// document the v2 driver wrote with no registry (binary subtype 0), as an
// application that adopts the registry does.
func TestServerStdUUIDReadsUnregistered(t *testing.T) {
	ctx := context.Background()
	name := dbName()
	coll := func(o *options.ClientOptions) *mongo.Collection {
		client, err := mongo.Connect(o.ApplyURI(mongotest.URI(t)).SetTimeout(30 * time.Second))
		require.NoError(t, err)
		t.Cleanup(func() { _ = client.Database(name).Drop(ctx); _ = client.Disconnect(ctx) })
		return client.Database(name).Collection("docs")
	}
	plain, registered := coll(options.Client()), coll(options.Client().SetRegistry(mongov2.Registry()))
	ref := uuid.NewV7()
	doc := stdUUIDDoc{ID: uuid.NewV7(), Ref: &ref, Name: "old"}
	_, err := plain.InsertOne(ctx, doc)
	require.NoError(t, err)
	var got stdUUIDDoc
	require.NoError(t, registered.FindOne(ctx, bson.M{"name": "old"}).Decode(&got))
	assert.Equal(t, doc, got)
}

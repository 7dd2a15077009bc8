package mongov2

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/idkit-go/idkit/mongocompat"
	"github.com/idkit-go/idkit/mongocompat/internal/idcodec"
)

// InsertOne fills doc's zero _id with f (nil means the zero
// [mongocompat.Filler]) as [mongocompat.Filler.FillID] does and inserts it
// into coll, a v2 driver collection. doc keeps the filled key, so the
// application has it whether or not the insert succeeds. Filling errors are
// returned before anything is sent; otherwise the driver's result and error
// are returned (check a duplicate key with mongo.IsDuplicateKeyError). When
// doc has an idkit _id, the result's InsertedID is that key as the document
// holds it (a [types.ObjectID], not the driver's bson.ObjectID).
func InsertOne(ctx context.Context, f *mongocompat.Filler, coll *mongo.Collection, doc any, opts ...options.Lister[options.InsertOneOptions]) (*mongo.InsertOneResult, error) {
	if f == nil {
		f = new(mongocompat.Filler)
	}
	id, _, err := f.FillID(doc)
	if err != nil {
		return nil, err
	}
	res, err := coll.InsertOne(ctx, doc, opts...)
	if res != nil && id != nil {
		res.InsertedID = id
	}
	return res, err
}

// InsertMany fills the zero _id of each of docs with f (nil means the zero
// [mongocompat.Filler]) as [mongocompat.Filler.FillIDs] does
// and inserts them into coll, a v2 driver collection. docs is any slice the
// driver accepts; a []T of structs is filled in place. Filling errors are
// returned before anything is sent; otherwise the driver's result and error
// are returned. The result's InsertedIDs holds, for each document with an
// idkit _id, that key as the document holds it (for example a
// [types.ObjectID] or [types.Snowflake], not the driver's bson.ObjectID);
// other documents keep the driver's value.
func InsertMany(ctx context.Context, f *mongocompat.Filler, coll *mongo.Collection, docs any, opts ...options.Lister[options.InsertManyOptions]) (*mongo.InsertManyResult, error) {
	if f == nil {
		f = new(mongocompat.Filler)
	}
	ids, err := f.FillIDs(docs)
	if err != nil {
		return nil, err
	}
	res, err := coll.InsertMany(ctx, docs, opts...)
	if res != nil {
		idcodec.UseDocumentIDs(res.InsertedIDs, ids)
	}
	return res, err
}

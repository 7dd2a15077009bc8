package mongocompat

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// InsertOneV2 fills doc's zero _id as [Filler.FillID] does and inserts it
// into coll, a v2 driver collection. doc keeps the filled key, so the
// application has it whether or not the insert succeeds. Filling errors are
// returned before anything is sent; otherwise the driver's result and error
// are returned (check a duplicate key with mongo.IsDuplicateKeyError).
func (f *Filler) InsertOneV2(ctx context.Context, coll *mongo.Collection, doc any, opts ...options.Lister[options.InsertOneOptions]) (*mongo.InsertOneResult, error) {
	if _, _, err := f.FillID(doc); err != nil {
		return nil, err
	}
	return coll.InsertOne(ctx, doc, opts...)
}

// InsertManyV2 fills the zero _id of each of docs as [Filler.FillIDs] does
// and inserts them into coll, a v2 driver collection. docs is any slice the
// driver accepts; a []T of structs is filled in place. Filling errors are
// returned before anything is sent; otherwise the driver's result and error
// are returned.
func (f *Filler) InsertManyV2(ctx context.Context, coll *mongo.Collection, docs any, opts ...options.Lister[options.InsertManyOptions]) (*mongo.InsertManyResult, error) {
	if _, err := f.FillIDs(docs); err != nil {
		return nil, err
	}
	return coll.InsertMany(ctx, docs, opts...)
}

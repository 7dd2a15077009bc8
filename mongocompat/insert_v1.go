package mongocompat

import (
	"context"

	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// InsertOneV1 fills doc's zero _id as [Filler.FillID] does and inserts it
// into coll, a v1 driver collection. doc keeps the filled key, so the
// application has it whether or not the insert succeeds. Filling errors are
// returned before anything is sent; otherwise the driver's result and error
// are returned (check a duplicate key with mongo.IsDuplicateKeyError). The
// collection needs the codecs of [RegisterV1] (for example through
// [V1Registry]) to store idkit types as BSON ObjectId and int64.
func (f *Filler) InsertOneV1(ctx context.Context, coll *mongo.Collection, doc any, opts ...*options.InsertOneOptions) (*mongo.InsertOneResult, error) {
	if _, _, err := f.FillID(doc); err != nil {
		return nil, err
	}
	return coll.InsertOne(ctx, doc, opts...)
}

// InsertManyV1 fills the zero _id of each of docs as [Filler.FillIDs] does
// and inserts them into coll, a v1 driver collection. Filling errors are
// returned before anything is sent; otherwise the driver's result and error
// are returned. See [Filler.InsertOneV1] for the registry the collection
// needs.
func (f *Filler) InsertManyV1(ctx context.Context, coll *mongo.Collection, docs []any, opts ...*options.InsertManyOptions) (*mongo.InsertManyResult, error) {
	if _, err := f.FillIDs(docs); err != nil {
		return nil, err
	}
	return coll.InsertMany(ctx, docs, opts...)
}

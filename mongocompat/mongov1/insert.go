package mongov1

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/idkit-go/idkit/mongocompat"
	"github.com/idkit-go/idkit/mongocompat/internal/idcodec"
)

// InsertOne fills doc's zero _id with f (nil means the zero
// [mongocompat.Filler]) as [mongocompat.Filler.FillID] does
// and inserts it into coll, a v1 driver collection. doc keeps the filled
// key, so the application has it whether or not the insert succeeds.
// Filling errors are returned before anything is sent; otherwise the
// driver's result and error are returned (check a duplicate key with
// mongo.IsDuplicateKeyError); unlike the driver's own, a marshalling error
// (such as a zero ID in another field, [types.ErrZeroID]) is seen through by
// errors.Is. When doc has an idkit _id, the result's
// InsertedID is that key as the document holds it (a [types.ObjectID], not
// primitive.ObjectID). The collection needs the codecs of [Registry] to
// store idkit types as BSON ObjectId and int64.
func InsertOne(ctx context.Context, f *mongocompat.Filler, coll *mongo.Collection, doc any, opts ...*options.InsertOneOptions) (*mongo.InsertOneResult, error) {
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
	return res, unwrappable(err)
}

// InsertMany fills the zero _id of each of docs with f (nil means the zero
// [mongocompat.Filler]) as
// [mongocompat.Filler.FillIDs] does and inserts them into coll, a v1 driver
// collection. Filling errors are returned before anything is sent;
// otherwise the driver's result and error are returned, with InsertedIDs
// holding, for each document with an idkit _id, that key as the document
// holds it; other documents keep the driver's value. See [InsertOne] for the registry the
// collection needs.
func InsertMany(ctx context.Context, f *mongocompat.Filler, coll *mongo.Collection, docs []any, opts ...*options.InsertManyOptions) (*mongo.InsertManyResult, error) {
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
	return res, unwrappable(err)
}

// marshalError is a mongo.MarshalError that errors.Is and errors.As see
// through: the driver's type has no Unwrap method.
type marshalError struct{ mongo.MarshalError }

func (e marshalError) Unwrap() []error { return []error{e.MarshalError, e.Err} }

// unwrappable returns err with a mongo.MarshalError made unwrappable.
func unwrappable(err error) error {
	var me mongo.MarshalError
	if errors.As(err, &me) {
		return marshalError{me}
	}
	return err
}

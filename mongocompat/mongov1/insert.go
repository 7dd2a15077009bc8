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
// [mongocompat.Filler]) and inserts doc into coll. Filling errors are returned
// before anything is sent, and doc keeps the filled key whether or not the
// insert succeeds; otherwise the driver's result and error are returned. The
// result's InsertedID is the idkit key as doc holds it (a [types.ObjectID],
// not primitive.ObjectID).
// The collection needs the codecs of [Registry]. A marshalling error (such as
// [types.ErrZeroID] in another field) is seen through by errors.Is.
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
// [mongocompat.Filler]), as [mongocompat.Filler.FillIDs] does, and inserts
// them into coll, as [InsertOne] does for one document. The result's
// InsertedIDs hold each idkit key as its document holds it.
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

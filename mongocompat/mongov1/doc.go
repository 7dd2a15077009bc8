// Package mongov1 connects idkit's ID types to the v1 MongoDB Go driver
// (go.mongodb.org/mongo-driver). Importing it compiles no v2 driver
// package; an application on the v2 driver uses package mongov2 instead and
// compiles no v1 package.
//
// The v1 driver's ValueMarshaler uses bsontype.Type, which one method cannot
// satisfy together with v2's, so v1 needs codecs: [Registry] is the driver's
// default registry with them. Pass it with options.Client().SetRegistry (or
// the database or collection options). Without them, v1 stores an ObjectID
// as BSON binary.
//
// [ToObjectID] and [FromObjectID] convert to and from primitive.ObjectID.
// [InsertOne] and [InsertMany] fill zero _id fields with a
// [mongocompat.Filler] and insert in one call.
package mongov1

// Package mongov1 connects idkit's ID types to the v1 MongoDB Go driver
// (go.mongodb.org/mongo-driver). The v1 driver needs the codecs of
// [Registry]: without them it stores an ObjectID as BSON binary.
// [InsertOne] and [InsertMany] fill zero _id fields and insert in one call.
// A [types.ObjectID] converts to primitive.ObjectID and back with a type
// conversion. See https://github.com/idkit-go/idkit/blob/main/docs/mongodb.md.
package mongov1

// Package mongov2 connects idkit's ID types to the v2 MongoDB Go driver
// (go.mongodb.org/mongo-driver/v2). The driver needs no registration for
// them; [Registry] makes encoding and decoding them as fast as the driver's
// own ObjectID. [InsertOne] and [InsertMany] fill zero _id fields and insert
// in one call. A [types.ObjectID] converts to bson.ObjectID and back with a
// type conversion. See
// https://github.com/idkit-go/idkit/blob/main/docs/mongodb.md.
package mongov2

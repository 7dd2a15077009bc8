// Package mongov2 connects idkit's ID types to the v2 MongoDB Go driver
// (go.mongodb.org/mongo-driver/v2). Importing it compiles no v1 driver
// package.
//
// The driver needs no registration for idkit's types: they implement its
// bson.ValueMarshaler and bson.ValueUnmarshaler, in structs, bson.M, bson.D
// and filters alike. The driver reaches those methods through reflection on
// every value, which makes encoding and decoding them slower than its own
// ObjectID; [Registry] holds direct codecs that read and write them as fast
// as the driver's own ObjectID (docs/mongodb.md gives the measurements), and
// [MapObjectIDs] makes BSON ObjectIds decode into types.ObjectID where the
// destination is an interface (bson.M, bson.D, any fields).
//
// [ToObjectID] and [FromObjectID] convert to and from bson.ObjectID.
// [InsertOne] and [InsertMany] fill zero _id fields with a
// [mongocompat.Filler] and insert in one call.
package mongov2

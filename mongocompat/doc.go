// Package mongocompat connects idkit's ID types to the official MongoDB Go
// drivers, v1 (go.mongodb.org/mongo-driver) and v2
// (go.mongodb.org/mongo-driver/v2).
//
// With the v2 driver the types need no registration: [types.ObjectID],
// [types.Snowflake], [types.NullObjectID] and [types.NullSnowflake]
// implement its bson.ValueMarshaler and bson.ValueUnmarshaler, so an
// ObjectID is stored as a BSON ObjectId (0x07) and a Snowflake as an int64
// (0x12), in structs, bson.M, bson.D and filters alike. The driver reaches
// those methods through reflection on every value, which makes a small
// document's round trip about twice as slow as with its own ObjectID;
// [V2Registry] registers direct codecs that remove the difference, and
// [MapV2ObjectIDs] makes BSON ObjectIds decode into types.ObjectID where the
// destination is an interface (bson.M, bson.D, any fields).
//
// The v1 driver's ValueMarshaler uses bsontype.Type, which one method cannot
// satisfy together with v2's, so v1 needs the codecs that [RegisterV1] adds
// to a registry; [V1Registry] is the driver's default registry with them.
// Pass it with options.Client().SetRegistry (or the database or collection
// options). Without them, v1 stores an ObjectID as BSON binary.
//
// Conversions to and from the drivers' ObjectID types are [ToV1ObjectID],
// [FromV1ObjectID], [ToV2ObjectID] and [FromV2ObjectID].
//
// A [Filler] fills zero _id fields of struct documents before they are
// inserted, as the drivers do for documents without _id, so the application
// knows each key before the write; [Filler.InsertOneV1],
// [Filler.InsertManyV1], [Filler.InsertOneV2] and [Filler.InsertManyV2] fill
// and insert in one call. v1 code lives in the files ending in _v1.go, v2
// code in those ending in _v2.go.
package mongocompat

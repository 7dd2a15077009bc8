// Package mongocompat connects idkit's ID types to the official MongoDB Go
// drivers. It imports neither driver: the driver-specific parts live in
// their own packages, so an application compiles only the driver it uses.
//
//   - [github.com/idkit-go/idkit/mongocompat/mongov2], for
//     go.mongodb.org/mongo-driver/v2: an optional faster registry,
//     conversions to bson.ObjectID, and fill-then-insert helpers.
//   - [github.com/idkit-go/idkit/mongocompat/mongov1], for
//     go.mongodb.org/mongo-driver (v1): the codecs v1 needs, conversions to
//     primitive.ObjectID, and fill-then-insert helpers.
//
// With the v2 driver the types need no registration: [types.ObjectID],
// [types.Snowflake], [types.NullObjectID] and [types.NullSnowflake]
// implement its bson.ValueMarshaler and bson.ValueUnmarshaler without
// importing it, so an ObjectID is stored as a BSON ObjectId (0x07) and a
// Snowflake as an int64 (0x12). The v1 driver needs mongov1.Registry.
//
// A zero ObjectID or Snowflake is never written, with either driver: as in
// SQL, encoding one (in _id, another field, a filter or an update) fails
// with an error wrapping [types.ErrZeroID] and nothing is sent; an invalid
// Null form is written as null. This package holds what both drivers share:
// a [Filler] fills zero _id fields of struct documents before they are
// inserted, as the drivers do for documents without _id, so the application
// knows each key before the write; the drivers' packages have Insert
// helpers that fill and insert in one call.
package mongocompat

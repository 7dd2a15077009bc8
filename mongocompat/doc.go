// Package mongocompat holds what idkit's MongoDB support shares between the
// drivers: a [Filler] that fills zero _id fields of struct documents before
// they are inserted, so the application knows every key before the write.
// It imports neither driver; [github.com/idkit-go/idkit/mongocompat/mongov2]
// and [github.com/idkit-go/idkit/mongocompat/mongov1] hold each driver's
// codecs and fill-then-insert helpers.
//
// With the v2 driver the ID types need no registration: an ObjectID is
// stored as a BSON ObjectId and a Snowflake as an int64. A zero ID is never
// written, with either driver: encoding one fails with an error wrapping
// [types.ErrZeroID]. See
// https://github.com/idkit-go/idkit/blob/main/docs/mongodb.md.
package mongocompat

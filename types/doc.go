// Package types defines idkit's ID value types, [ObjectID], [Snowflake] and
// [UUID], and their nullable forms [NullObjectID], [NullSnowflake] and
// [NullUUID].
//
// The types work unchanged in every place an application keeps an ID: text
// ([encoding.TextMarshaler]), JSON, [database/sql] ([database/sql/driver.Valuer]
// and [database/sql.Scanner]), BSON with the method signatures of the
// official MongoDB Go driver v2, binary ([encoding.BinaryMarshaler], for
// protobuf bytes fields and caches) and GraphQL with the method signatures
// of gqlgen's marshalers. None of these needs a driver or library import.
//
// # No value and zero
//
// The zero value of each type means "no ID". Decoding the empty form of an
// encoding (JSON null or "", empty text, empty binary, BSON null, GraphQL
// null) gives the zero ID; GraphQL "" is an error, so an empty argument
// never becomes a zero key. In the Null forms, which read JSON, SQL, BSON
// and GraphQL, the empty forms (GraphQL "" included) and SQL NULL give NULL
// (Valid false), never a valid zero. A zero ID is never written to a
// database: [ObjectID.Value], [Snowflake.Value], [UUID.Value] and their
// MarshalBSONValue methods return an error wrapping [ErrZeroID]; store NULL
// with an invalid Null form, or leave the field out (bson omitempty).
// Scanning SQL NULL into ObjectID, Snowflake or UUID is an error wrapping
// [ErrNull].
//
// # Errors
//
// Every parse, unmarshal and scan failure wraps [ErrInvalidObjectID],
// [ErrInvalidSnowflake] or [ErrInvalidUUID], leaves the destination unchanged and quotes at most
// the first 32 bytes of the input. A Snowflake is never negative: every
// decoder rejects a negative number with an error that says so.
//
// The hex text of an ObjectID and the binary forms of all three types sort
// as the IDs do under byte-wise comparison; see
// https://github.com/idkit-go/idkit/blob/main/docs/encoding.md for every
// encoding's rules.
//
// The types are plain values, safe to read from many goroutines; the Scan
// and Unmarshal methods write, as any assignment does. Importing types pulls
// in no SQL driver and no MongoDB driver.
package types

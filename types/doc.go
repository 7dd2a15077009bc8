// Package types defines idkit's ID value types, [ObjectID] and [Snowflake],
// and their nullable forms [NullObjectID] and [NullSnowflake].
//
// The types work unchanged in every place an application keeps an ID: text
// ([encoding.TextMarshaler]), JSON, [database/sql] ([database/sql/driver.Valuer]
// and [database/sql.Scanner]) and BSON with the method signatures of the
// official MongoDB Go driver v2, which need no driver import. Text is the hub:
// String, JSON and Scan from a string all go through one parser.
//
// Importing types pulls in no SQL driver and no MongoDB driver.
package types

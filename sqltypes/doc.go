// Package sqltypes holds the SQL-side helpers for idkit's ID types: the
// column type each dialect uses ([ObjectIDColumnType], by a dialect.Dialect; a Snowflake column is
// a plain bigint everywhere), [HexObjectID] and [NullHexObjectID] for schemas
// that store ObjectIDs as 24 hex characters, and [SnowflakeRange] and
// [ObjectIDRange], which turn "rows created in [from, to)" into a
// primary-key range, as a GORM scope or as SQL arguments. Everything here is
// safe for concurrent use. See
// https://github.com/idkit-go/idkit/blob/main/docs/sql.md.
package sqltypes

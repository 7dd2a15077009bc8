// Package sqltypes holds the SQL-side helpers for idkit's ID types: the
// column type each dialect uses ([ObjectIDColumnType], by a dialect.Dialect),
// a second storage form for ObjectIDs as 24-character hex text
// ([HexObjectID], [NullHexObjectID]) for schemas that already store them so,
// and time-range helpers ([SnowflakeRange], [ObjectIDRange]) that turn "rows
// created in [from, to)" into a primary-key range scan, as a GORM scope or as
// plain SQL arguments.
//
// Everything here is a value or a pure function: it is safe for concurrent
// use.
package sqltypes

//go:build idkit_nogorm

package types

// Built with -tags idkit_nogorm, package types imports no GORM package (see
// gorm.go for the measured cost of the import). These methods keep GORM
// from making a Snowflake key auto-increment should GORM be used anyway, but
// without the dialect a BLOB or LONGBLOB column is all GORM can pick for an
// ObjectID, which MySQL cannot index as a key: use the default build with
// GORM.

// GormDataType returns "bigint", the GORM data type of a Snowflake column.
func (Snowflake) GormDataType() string { return "bigint" }

// GormDataType returns "bigint", as [Snowflake.GormDataType] does.
func (NullSnowflake) GormDataType() string { return "bigint" }

// GormDataType returns GORM's "bytes" data type.
func (ObjectID) GormDataType() string { return "bytes" }

// GormDataType returns GORM's "bytes" data type.
func (NullObjectID) GormDataType() string { return "bytes" }

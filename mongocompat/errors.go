package mongocompat

import "errors"

// ErrInvalidDocument is this package's own sentinel error; test for it with
// [errors.Is]. The package also returns errors of packages generator and
// types, named once there: [generator.ErrNoSnowflakeGenerator] for a zero
// Snowflake _id to fill with no Snowflake generator given
// ([WithSnowflake]), and [types.ErrNotAddressable] for a zero _id in a
// document passed by value.
var (
	// ErrInvalidDocument reports documents the driver could not encode
	// either, such as a struct with two _id fields at the same inline depth.
	ErrInvalidDocument = errors.New("mongocompat: invalid document")
)

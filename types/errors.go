package types

import "errors"

// Sentinel errors. Every parse, unmarshal and scan failure of a type wraps
// that type's sentinel, so callers test with [errors.Is]; the message names
// what was wrong with the input.
var (
	// ErrInvalidObjectID is wrapped by every failure to parse, unmarshal or
	// scan an [ObjectID] or [NullObjectID].
	ErrInvalidObjectID = errors.New("types: invalid ObjectID")

	// ErrInvalidSnowflake is wrapped by every failure to parse, unmarshal or
	// scan a [Snowflake] or [NullSnowflake].
	ErrInvalidSnowflake = errors.New("types: invalid Snowflake")

	// ErrNull is wrapped, together with the type's sentinel, when NULL (SQL
	// NULL, BSON null) is scanned or decoded into a non-nullable ID. Use
	// [NullObjectID] or [NullSnowflake] for nullable columns.
	ErrNull = errors.New("types: NULL into a non-nullable ID (use the Null form)")
)

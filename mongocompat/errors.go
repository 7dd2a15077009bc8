package mongocompat

import (
	"errors"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// Sentinel errors returned by this package; test for them with [errors.Is].
var (
	// ErrNoSnowflakeGenerator reports a zero Snowflake _id to fill with no
	// Snowflake generator configured (see [WithSnowflake]). A
	// Snowflake is never made up without one: node 0 of an unmanaged
	// generator would collide with other processes.
	ErrNoSnowflakeGenerator = generator.ErrNoSnowflakeGenerator

	// ErrNotAddressable reports a document whose _id is zero but cannot be
	// set, because the document was passed by value rather than by pointer.
	ErrNotAddressable = types.ErrNotAddressable

	// ErrInvalidDocument reports documents the driver could not encode
	// either: a struct type with two _id fields at the same inline depth, an
	// inline struct that contains itself, or documents for a many-document
	// call that are not a slice or array.
	ErrInvalidDocument = errors.New("mongocompat: invalid document")
)

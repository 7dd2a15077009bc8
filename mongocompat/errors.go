package mongocompat

import (
	"errors"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// Sentinel errors returned by this package; test for them with [errors.Is].
var (
	// ErrNoSnowflakeGenerator reports a zero Snowflake _id to fill with no
	// Snowflake generator given ([WithSnowflake]). It is
	// [generator.ErrNoSnowflakeGenerator].
	ErrNoSnowflakeGenerator = generator.ErrNoSnowflakeGenerator

	// ErrNotAddressable reports a zero _id in a document passed by value.
	// It is [types.ErrNotAddressable].
	ErrNotAddressable = types.ErrNotAddressable

	// ErrInvalidDocument reports documents the driver could not encode
	// either, such as a struct with two _id fields at the same inline depth.
	ErrInvalidDocument = errors.New("mongocompat: invalid document")
)

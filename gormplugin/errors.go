package gormplugin

import (
	"errors"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// Sentinel errors of this package; test for them with [errors.Is].
var (
	// ErrNoSnowflakeGenerator reports a Snowflake field to fill by a plugin
	// given no Snowflake generator ([WithSnowflake], [WithNode] or
	// [WithNodeSource]); it fails that create (or [Plugin.Prepare]). It is
	// also returned by db.Use when the [WithNodeSource] source fails.
	ErrNoSnowflakeGenerator = generator.ErrNoSnowflakeGenerator

	// ErrInvalidConfig reports an unusable option, such as a nil generator
	// or a node the layout cannot hold; the cause is wrapped too.
	ErrInvalidConfig = generator.ErrInvalidConfig

	// ErrUnsupportedField reports an idkit tag with an unknown value, or on a
	// field whose type cannot hold that kind of ID.
	ErrUnsupportedField = errors.New("gormplugin: unsupported idkit field")

	// ErrGenerate reports that a generator could not make a key; the
	// generator's error is wrapped too. Rows filled before it keep their keys.
	ErrGenerate = errors.New("gormplugin: cannot generate key")

	// ErrUpsertKey reports an upsert row whose stored key the plugin could
	// not learn (its key is left zero), or a failure reading it back.
	ErrUpsertKey = errors.New("gormplugin: cannot learn the stored key of an upsert row")

	// ErrUntaggedKey reports a create whose composite primary key has a
	// zero part of an idkit type without an idkit tag. In a composite key
	// only tagged parts are filled: tag the part idkit:"snowflake" or
	// idkit:"objectid" to have it filled, or set it before the create.
	ErrUntaggedKey = errors.New("gormplugin: zero composite key part without an idkit tag")

	// ErrNotAddressable reports a zero key in a value passed by value (for
	// example an array rather than a pointer to it), which cannot be set.
	ErrNotAddressable = types.ErrNotAddressable
)

package gormplugin

import "errors"

// Sentinel errors of this package; test for them with [errors.Is]. The
// plugin also returns errors of packages generator and types, named once
// there: [generator.ErrInvalidConfig] for an unusable option at db.Use
// (such as a node the layout cannot hold),
// [generator.ErrNoSnowflakeGenerator] for a Snowflake field to fill by a
// plugin given neither [WithNode] nor [WithSnowflake], and
// [types.ErrNotAddressable] for a zero key in a value passed by value,
// which cannot be set.
var (
	// ErrUnsupportedField reports an idkit tag with an unknown value, a
	// field whose type cannot hold that kind of ID, or an integer primary
	// key to fill that GORM made auto-increment (it has no
	// autoIncrement:false tag). On MySQL/MariaDB it also wraps the error
	// of an AutoMigrate that gave a uuid.UUID key GORM's longblob column.
	ErrUnsupportedField = errors.New("gormplugin: unsupported idkit field")

	// ErrGenerate reports that a generator could not make a key; the
	// generator's error is wrapped too.
	ErrGenerate = errors.New("gormplugin: cannot generate key")

	// ErrUpsertKey reports an upsert row whose stored key the plugin could
	// not learn (its key is left zero), or a failure reading it back.
	ErrUpsertKey = errors.New("gormplugin: cannot learn the stored key of an upsert row")

	// ErrUntaggedKey reports a zero part of an idkit type in a composite
	// primary key without an idkit tag: only tagged parts are filled.
	ErrUntaggedKey = errors.New("gormplugin: zero composite key part without an idkit tag")
)

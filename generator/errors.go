package generator

import (
	"errors"

	"github.com/idkit-go/idkit/internal/sentinel"
)

// Errors returned by this package and by
// [github.com/idkit-go/idkit/generator/meteor] wrap one of these; test with
// [errors.Is].
var (
	// ErrInvalidLayout reports a layout spec out of range, or the zero
	// [Layout].
	ErrInvalidLayout = errors.New("generator: invalid layout")
	// ErrInvalidConfig reports an unusable option or setting given to any
	// idkit constructor. Every idkit package's ErrInvalidConfig is this
	// value.
	ErrInvalidConfig = errInvalidConfig
	// ErrNoSnowflakeGenerator reports a zero Snowflake key to fill where no
	// Snowflake generator was configured (gormplugin, mongocompat).
	ErrNoSnowflakeGenerator = errors.New("idkit: no Snowflake generator")
	// ErrNodeOutOfRange reports a node ID that is negative or does not fit
	// the layout's node field; node IDs are never masked to fit.
	ErrNodeOutOfRange = errors.New("generator: node id out of range")
	// ErrClockMovedBackwards reports a clock that reads further behind the
	// last issued tick than the generator's backward tolerance allows.
	ErrClockMovedBackwards = errors.New("generator: clock moved backwards")
	// ErrTimeOverflow reports a time before the layout's epoch or at or
	// after its end.
	ErrTimeOverflow = errors.New("generator: time out of layout range")
	// ErrFenced reports that a leased generator
	// ([github.com/idkit-go/idkit/generator/node.NewSnowflake]) refused to
	// issue because its lease is not trusted; the lease's error is wrapped.
	ErrFenced = errors.New("generator: fenced")
	// ErrInvalidID reports an ID, or a sequence value, that does not fit a
	// layout.
	ErrInvalidID = errors.New("generator: id does not fit layout")
)

// errInvalidConfig is the configuration sentinel every idkit package
// exports; segment names it too, without importing this package.
var errInvalidConfig = sentinel.ErrInvalidConfig

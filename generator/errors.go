package generator

import "errors"

// Sentinel errors returned by this package and by
// [github.com/idkit-go/idkit/generator/meteor]. Errors carry detail by
// wrapping one of these; test for them with [errors.Is].
var (
	// ErrInvalidLayout reports a layout whose bit widths, time unit or epoch
	// are out of range, or use of the zero [Layout].
	ErrInvalidLayout = errors.New("generator: invalid layout")
	// ErrInvalidConfig reports an unusable option or setting given to any
	// idkit constructor, such as a negative duration or a nil [Clock]. The
	// ErrInvalidConfig of every other idkit package is this same value, so
	// errors.Is matches it whichever package's name the caller tests.
	ErrInvalidConfig = errors.New("idkit: invalid configuration")
	// ErrNoSnowflakeGenerator reports a zero Snowflake key to fill where no
	// Snowflake generator was configured. A Snowflake is never made up
	// without one: node 0 of an unmanaged generator would collide with
	// other processes. gormplugin and mongocompat return this same value.
	ErrNoSnowflakeGenerator = errors.New("idkit: no Snowflake generator")
	// ErrNodeOutOfRange reports a node (worker, machine) ID that is negative
	// or does not fit the layout's node field. Node IDs are never masked to
	// fit: a masked ID would collide with another node's.
	ErrNodeOutOfRange = errors.New("generator: node id out of range")
	// ErrClockMovedBackwards reports a clock that reads further behind the
	// last issued tick than the generator's backward tolerance allows.
	ErrClockMovedBackwards = errors.New("generator: clock moved backwards")
	// ErrTimeOverflow reports a time (or tick) before the layout's epoch or
	// at or after its end, the first time the time field cannot hold; for a
	// meteor generator also a time part that has run to the layout's end.
	ErrTimeOverflow = errors.New("generator: time out of layout range")
	// ErrFenced reports that a generator refused to issue an ID because its
	// fence (see [WithFence]) returned an error; that error is wrapped too.
	ErrFenced = errors.New("generator: fenced")
	// ErrInvalidID reports an ID that does not fit a layout: a negative ID,
	// an ID with bits set above the layout's fields, or a sequence value too
	// wide for the layout's sequence field.
	ErrInvalidID = errors.New("generator: id does not fit layout")
)

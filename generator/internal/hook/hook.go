// Package hook lets the packages under generator/ reach settings of package
// generator that are not public API: package node wires a Snowflake
// generator to a lease (a fence, a floor, its last issued time, a move to
// another node when the lease heals) and package meteor reads the
// generator.SharedOptions it takes. Only packages under generator/ can
// import it. Package generator sets every hook in its init; values typed
// any are the generator's own types (see each hook).
//
// Moving a generator is safe only while its fence refuses every ID, for a
// node the caller holds, with the floor the node's coordinator recorded;
// package node keeps those rules (see its Lease.heal).
//
// Why a registry: package generator imports this one, so this one cannot
// name generator's types (hence the values typed any, each asserted to the
// type its doc names), and package node can reach generator's unexported
// wiring only through a package both import. The alternatives are exported
// names in generator that only idkit's own packages need, or moving the
// Snowflake generator into an internal package that generator wraps; both
// cost more than these five variables. Each is set once, in generator's
// init, before any package that imports generator runs.
package hook

import "time"

var (
	// WithFence returns a generator.SnowflakeOption that makes the
	// generator call f before each ID is made, after any wait, and again
	// after it is made, before it is returned. If f returns an error, Next
	// returns no ID and an error wrapping generator.ErrFenced and f's
	// error. f must be safe for concurrent use. A nil f sets no fence;
	// several fences combine, checked in order.
	WithFence func(f func() error) any

	// WithNotBefore returns a generator.SnowflakeOption that sets the
	// generator's floor: it never issues an ID whose time is at or before
	// t. The floor counts as an issued tick (Next waits within the
	// backward tolerance, fails with generator.ErrClockMovedBackwards
	// beyond it). The zero time and times before the epoch set no floor;
	// NewSnowflake rejects a t at or after the layout's end with
	// generator.ErrTimeOverflow. Several floors combine: the latest holds.
	WithNotBefore func(t time.Time) any

	// LastTime returns the start of the last tick g, a
	// *generator.Snowflake, issued (the floor's tick or the epoch before
	// the first ID): the high-water mark a lease records on Close.
	LastTime func(g any) time.Time

	// Rebind moves g, a *generator.Snowflake built with a fence, to node:
	// every ID it returns from now on is composed with node and has a time
	// after floor. It returns an error for another type of g, a generator
	// without a fence, a node outside g's layout or a floor at or after
	// the layout's end.
	Rebind func(g any, node int64, floor time.Time) error

	// Shared applies opts, a []generator.SharedOption, and returns the
	// clock (a generator.Clock; nil if an option set a nil clock), the
	// per-CPU block size and the key form (a types.Form) they set: by
	// default generator.SystemClock(), 1 and the ordered form.
	Shared func(opts any) (clock any, block int, form any)
)

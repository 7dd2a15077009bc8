// Package wiring connects the Snowflake generator of package generator to
// the packages under generator/ that build on it through settings that are
// not public API. Its types are options that generator.NewSnowflake
// recognizes by their type (generator.SnowflakeOption embeds [Option]):
//
//   - [Lease] wires a generator to a lease (package node): a fence, a
//     floor, and, set by NewSnowflake, the generator's last issued time
//     and its move to another node when the lease heals;
//   - [Settings] receives the settings a generator's options give, for
//     package node's lease (node range, unit, clock, borrow-ahead) and
//     package meteor (clock, per-CPU blocks).
//
// Only packages under generator/ can import it, so no user can build a
// generator that misses a fence or moves without one.
package wiring

import "time"

// Option is what every generator.SnowflakeOption is. Only the types of
// this package, and those that embed [Sealed], implement it.
type Option interface{ snowflakeOption() }

// Sealed makes the type that embeds it an [Option].
type Sealed struct{}

func (Sealed) snowflakeOption() {}

// Clock is generator.Clock, which package wiring cannot import: an
// interface with the same methods, so that values convert both ways.
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration)
}

// Lease wires the generator that NewSnowflake makes with it to a lease.
// Fence and NotBefore are read by NewSnowflake; Rebind and LastTime are
// set by it, before it returns the generator. One Lease serves one
// generator.
type Lease struct {
	// Fence, if not nil, is called before each ID is made, after any wait,
	// and again after it is made, before it is returned. If it returns an
	// error, Next returns no ID and an error wrapping generator.ErrFenced
	// and Fence's error. It must be safe for concurrent use. Several Lease
	// options combine their fences, checked in order.
	Fence func() error
	// NotBefore is the generator's floor: it never issues an ID whose time
	// is at or before it. The floor counts as an issued tick (Next waits
	// within the backward tolerance, fails with
	// generator.ErrClockMovedBackwards beyond it). The zero time and times
	// before the epoch set no floor; NewSnowflake rejects one at or after
	// the layout's end with generator.ErrTimeOverflow. Of several, the
	// latest holds.
	NotBefore time.Time

	// Rebind moves the generator to node: every ID it returns from then on
	// is composed with node and has a time after floor. It returns an
	// error for a generator without a fence, a node outside its layout or
	// a floor at or after the layout's end. Moving is safe only while the
	// fence refuses every ID, for a node the caller holds, with the floor
	// the node's coordinator recorded (package node's Lease.heal keeps
	// these rules).
	Rebind func(node int64, floor time.Time) error
	// LastTime returns the start of the last tick the generator issued
	// (the floor's tick, or the epoch, before the first ID): the
	// high-water mark a lease records on Close.
	LastTime func() time.Time
}

func (*Lease) snowflakeOption() {}

// Settings receives, from the NewSnowflake it is passed to, the settings
// the other options give once they are valid (a NewSnowflake that fails
// leaves it unchanged).
type Settings struct {
	MaxNode     int64         // the layout's largest node ID
	Unit        time.Duration // the layout's tick
	Clock       Clock
	BorrowAhead time.Duration
	Block       int // per-CPU block size, 1 without
}

func (*Settings) snowflakeOption() {}

package generator

import "time"

// SnowflakeOption configures a [Snowflake] generator in [NewSnowflake].
// Options are applied in order; a later option overrides an earlier one of
// the same kind, except [WithFence] and [WithNotBefore], which combine
// (every fence must pass; the latest floor holds). A nil option is ignored. Invalid values are reported by
// NewSnowflake, not by the option.
type SnowflakeOption func(*snowflakeConfig)

type snowflakeConfig struct {
	layout      Layout
	clock       Clock
	borrowAhead time.Duration
	tolerance   time.Duration
	notBefore   time.Time
	fence       func() error
	block       int
}

// WithLayout sets the generator's bit layout; the default is [Twitter]. The
// layout is copied. NewSnowflake rejects the zero Layout with
// [ErrInvalidLayout].
func WithLayout(l Layout) SnowflakeOption {
	return func(c *snowflakeConfig) { c.layout = l }
}

// WithClock sets the generator's time source; the default is
// [SystemClock]. NewSnowflake rejects a nil clock with [ErrInvalidOption].
func WithClock(clock Clock) SnowflakeOption {
	return func(c *snowflakeConfig) { c.clock = clock }
}

// WithBorrowAhead sets the policy for sequence exhaustion. With 0, the
// default, Next waits (sleeps on the clock) for the next tick when the
// current tick's sequence is used up. With max > 0, Next goes on issuing IDs
// from later ticks, up to max (rounded down to whole ticks) ahead of the
// clock, and waits only when that bound is reached; a burst then costs no
// latency, at the price of ID times up to max in the future. NewSnowflake
// rejects a negative max with [ErrInvalidOption].
func WithBorrowAhead(max time.Duration) SnowflakeOption {
	return func(c *snowflakeConfig) { c.borrowAhead = max }
}

// WithBackwardTolerance sets how far the clock may read behind the last
// issued tick (beyond any borrow-ahead allowance) before Next fails with
// [ErrClockMovedBackwards]; the default is [DefaultBackwardTolerance]. d is
// rounded up to whole ticks. Within the tolerance, Next keeps issuing from
// the last issued tick, continuing its sequence; when that runs out it
// borrows or waits as [WithBorrowAhead] says, so it waits at most about d.
// Beyond the tolerance Next fails at once, without waiting; once the clock
// has caught up, Next succeeds again with IDs above all earlier ones. With
// d = 0 any step back beyond the borrow-ahead allowance fails. NewSnowflake
// rejects a negative d with [ErrInvalidOption].
func WithBackwardTolerance(d time.Duration) SnowflakeOption {
	return func(c *snowflakeConfig) { c.tolerance = d }
}

// WithNotBefore sets a floor: the generator never issues an ID whose time is
// at or before t; its first ID is from a tick strictly after t's tick. A
// lease-based node source uses it so that a new holder of a node ID never
// reuses time a previous holder issued, even when its clock is behind:
// pass the later of the previous holder's recorded high-water mark
// ([Snowflake.LastTime]) and the time its lease expired plus its
// borrow-ahead allowance.
//
// The floor counts as an issued tick: if the clock reads behind it within
// the backward tolerance, Next waits for the clock; further behind, Next
// fails with [ErrClockMovedBackwards] until the clock passes the floor. It
// never issues at or below the floor. The zero time and times before the
// layout's epoch set no floor; NewSnowflake rejects a t at or after the
// layout's end with [ErrTimeOverflow]. Several WithNotBefore options combine:
// the latest floor holds.
func WithNotBefore(t time.Time) SnowflakeOption {
	return func(c *snowflakeConfig) {
		if t.After(c.notBefore) {
			c.notBefore = t
		}
	}
}

// WithFence sets a check made before each ID is made, after any wait, and
// again after the ID is made, before it is returned: an ID made just as the
// fence closed (the goroutine stalled in between) is discarded. If f returns
// an error, Next returns no ID and an error wrapping both [ErrFenced] and
// f's error. A lease-based node source passes
// a fence that fails once its lease is no longer safely held. f must be
// safe for concurrent use and should be fast: it runs on every Next. A nil
// f sets no fence. Several WithFence options combine: each fence is checked,
// in the order given, and the first error stops the ID.
func WithFence(f func() error) SnowflakeOption {
	return func(c *snowflakeConfig) {
		switch prev := c.fence; {
		case f == nil:
		case prev == nil:
			c.fence = f
		default:
			c.fence = func() error {
				if err := prev(); err != nil {
					return err
				}
				return f()
			}
		}
	}
}

// WithPerCPUBlocks makes each P (the Go scheduler's processor, one per core
// at the default GOMAXPROCS) reserve n sequence values at a time instead of
// one, so Next on many cores does not contend on the generator's one atomic
// word: Next then touches memory of its own P only, except once every n IDs.
// It pays off with [WithBorrowAhead], where the sequence is not the limit.
//
// IDs stay unique and every guarantee of clock, floor and fence holds, but
// they are increasing only within a block: an ID can be smaller than one
// returned earlier from another P's block (also to the same goroutine,
// after it moved to another P). A block is dropped, its values unused, once
// the clock has passed its tick; without borrowing, each tick may therefore
// lose up to n values per P of its sequence. n = 1 keeps the default;
// NewSnowflake rejects n outside [1, MaxPerCPUBlock] with
// [ErrInvalidOption].
func WithPerCPUBlocks(n int) SnowflakeOption {
	return func(c *snowflakeConfig) { c.block = n }
}

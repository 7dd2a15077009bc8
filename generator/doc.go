// Package generator makes IDs: Snowflake IDs with configurable bit layouts
// ([Twitter], [Sonyflake], [Discord] or one built with [NewLayout]) from
// [NewSnowflake], and MongoDB-style ObjectIDs from [NewObjectID] (objectid.go).
//
// Every generator is a value with its own configuration; nothing is
// configured through package variables. The preset layouts are read-only
// values that generators copy. Time comes from an injectable [Clock], so
// tests can drive a generator with a [FakeClock].
//
// A [Snowflake] generator never issues a duplicate, nor by default a
// decreasing ID ([WithPerCPUBlocks] trades that order for throughput on many
// cores). Its policies for sequence exhaustion (wait for the next tick, or
// borrow ahead of the clock within a bound) and for a clock that moves
// backwards (keep issuing from the last tick within a tolerance, otherwise
// fail with [ErrClockMovedBackwards]) are documented on its options.
package generator

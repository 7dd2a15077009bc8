// Package generator makes IDs: Snowflake IDs with configurable bit layouts
// ([Twitter], [Sonyflake], [Discord] or one built with [NewLayout]) from
// [NewSnowflake], and MongoDB-style ObjectIDs from [NewObjectID].
//
// Every generator is a value with its own configuration, set by options
// passed to its constructor ([SnowflakeOption], [ObjectIDOption]; an option
// of the other generator does not compile); nothing is configured through package
// variables. The preset layouts are returned by functions, so no code can
// change them for others. Time comes from an injectable [Clock], so tests
// can drive a generator with [github.com/idkit-go/idkit/generator/generatortest.FakeClock].
//
// By default both generators give IDs in the order Next returns them,
// across goroutines (an ObjectID generator within each second, whose second
// never goes backwards; the 8-byte number its process-unique value and
// counter form never wraps within a second, see [ObjectID]);
// [WithPerCPUBlocks] trades that order for throughput on many cores. A
// [Snowflake] generator never issues a duplicate; its policies for
// sequence exhaustion (wait for the next tick,
// or borrow ahead of the clock within a bound) and for a clock that moves
// backwards (keep issuing from the last tick within a tolerance, otherwise
// fail with [ErrClockMovedBackwards]) are documented on its options.
//
// On the system clock, generators cost no background work at low rates: a
// Snowflake generator reads the wall clock per ID until IDs come faster
// than a shared millisecond clock pays for, and that clock's goroutine
// stops once they slow down again.
package generator

// Package generator makes IDs: Snowflake IDs under a bit layout
// ([Twitter], [Sonyflake], [Discord] or one from [NewLayout]) with
// [NewSnowflake], and MongoDB ObjectIDs with [NewObjectID].
//
// Each generator is configured by options passed to its constructor
// ([SnowflakeOption], [ObjectIDOption], [SharedOption]); nothing is
// configured through package variables. Time comes from a [Clock], so
// tests can drive a generator with
// [github.com/idkit-go/idkit/generator/generatortest.FakeClock]. IDs come
// in the order Next returns them unless [WithPerCPUBlocks] trades that
// order for throughput. Guarantees and costs:
// https://github.com/idkit-go/idkit/blob/main/docs/generators.md
package generator

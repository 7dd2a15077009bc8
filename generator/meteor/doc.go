// Package meteor is an ID generator after the "Meteor" (流星) scheme: a
// 63-bit ID of time part | node | sequence | random bits whose time part is
// read from the clock once, at start, and then advances with the sequence.
// Clock rollback cannot affect it, but it needs a node ID that is new on
// every start ([github.com/idkit-go/idkit/generator/node.Disposable]), and
// its time part runs ahead of real time above [Layout.PerSecond] IDs a
// second. See https://github.com/idkit-go/idkit/blob/main/docs/generators.md#meteor
package meteor

// Package meteor is a clock-independent ID generator after the "Meteor"
// (流星) scheme: a 63-bit ID of time part | node | sequence | random bits whose
// time part is read from the clock only when the generator starts and then
// advances with the sequence. It is immune to clock rollback and reads no
// clock per ID, at the price of needing a node ID that is new on every start
// (see [github.com/idkit-go/idkit/generator/node.Disposable]) and of a time
// part that runs ahead of real time under sustained high rates. See
// [Generator] for the limits.
package meteor

// Package parse reads the text arguments of the idkit command: IDs as people
// paste them, Snowflake layout specifications and times.
//
// Every function is pure and safe for concurrent use. Every failure returns
// an error wrapping one of the sentinels in this package, with a message that
// names the input and says what was expected.
package parse

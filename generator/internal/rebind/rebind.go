// Package rebind lets package node move a fenced [generator.Snowflake] to
// another node ID when its lease heals, without making that move a public
// API: only packages under generator/ can import it. Package generator sets
// Snowflake in its init.
//
// Moving a generator is safe only while its fence refuses every ID, for a
// node the caller holds, with the floor the node's coordinator recorded;
// package node keeps those rules (see its Lease.heal).
package rebind

import "time"

// Snowflake moves g, a *generator.Snowflake built with a fence, to node:
// every ID it returns from now on is composed with node and has a time
// after floor. It returns an error for another type of g, a generator
// without a fence, a node outside g's layout or a floor at or after the
// layout's end.
var Snowflake func(g any, node int64, floor time.Time) error

// Package node provides node (worker, machine) IDs for the generators:
// fixed sources ([Static], [FromEnv], [FromPrivateIP], [FromStatefulSet]),
// a disposable source that is new on every start ([Disposable], for the
// Meteor generator), and leases that hand each ID to one live process at a
// time, kept in the application's own SQL database ([NewSQLLease]), in
// Redis (package [github.com/idkit-go/idkit/generator/node/redislease],
// kept apart so that only its users compile go-redis) or in any [Store]
// ([NewLease]).
//
// # Leases
//
// A lease claims a node ID that is free or whose lease has expired (which
// one is the store's choice: see [NewSQLStore]), atomically, and records an expiry computed from the coordinator's clock
// (the database's or Redis's, never the holder's). A background goroutine
// renews it every RenewEvery. The holder trusts the lease only until
// start-of-renewal + TTL - Margin on its local monotonic clock, which is
// before the coordinator can consider it expired; after that, [Lease.Fence]
// fails and a generator wired to it ([NewSnowflake]) returns errors instead
// of IDs. A renewal that finds another owner makes the lease lost for good.
//
// Each claim and renewal also records a high-water mark: an upper bound of
// any ID time the holder may issue until its next renewal (its clock at the
// start of the request + TTL + borrow-ahead + one tick of the layout).
// [Lease.Close] stops renewal, replaces the bound with the generator's exact
// last issued time and releases the ID. A new holder takes the recorded mark as its floor
// ([generator.WithNotBefore]), so it never issues an ID at or before any ID
// of an earlier holder, even with its own clock behind.
//
// Safety rests on one stated assumption: clocks run at about the same rate
// (drift over one TTL far below Margin). A process that stalls (a GC pause,
// SIGSTOP) while making an ID is covered by the generator's second fence
// check after the ID is made ([generator.WithFence], which [NewSnowflake]
// sets): the ID is discarded if the lease lapsed meanwhile, as far as the
// clock [Lease.Fence] reads can tell; Margin must exceed stalls that clock
// cannot see (see [LeaseOptions].Margin).
//
// Never delete rows of the lease table: a row keeps its node's high-water
// mark after release.
package node

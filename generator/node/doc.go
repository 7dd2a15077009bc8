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
// A lease claims a node ID that is free or whose lease has expired,
// atomically (the module's stores take the lowest such ID, or on a
// re-claim the lease's old one if free: see [NewSQLStore] and
// redislease.NewStore), and records an expiry computed from the
// coordinator's clock (the database's or Redis's, never the holder's). A background goroutine
// renews it every RenewEvery. The holder trusts the lease only until
// start-of-renewal + TTL - Margin on its local monotonic clock, which is
// before the coordinator can consider it expired; after that, [Lease.Fence]
// fails and a generator wired to it ([NewSnowflake]) returns errors instead
// of IDs until the lease heals (see Healing).
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
// # Healing
//
// The renewal goroutine runs until Close, except after a loss that it
// cannot heal (see below).
//
// A lease that lapses (renewals failing past TTL - Margin: the coordinator
// unreachable, the process paused) keeps retrying its renewal, RenewEvery/4
// apart (at least 10 ms); a renewal still unanswered after RenewEvery, or
// at the limit if later, is abandoned. If nobody took the node meanwhile,
// the first renewal that succeeds makes the lease trusted again, on the
// same node.
//
// A lease whose renewal finds another owner (or no record) is lost. If it
// serves a generator from [NewSnowflake], it claims a node again at once,
// preferring its old node ([Store].Claim's prefer) and otherwise taking a
// free one, and then retries every RenewEvery until a claim succeeds or
// Close. The claim follows the same floor rule as any claim. When the
// claimed node's floor is ahead of the clock, the lease waits (renewing
// the new claim) until the clock has passed it. It then moves the
// generator to the new node and only then opens the fence: the generator
// is the same object, and never issues at or before the new node's floor.
// A lease used only through [Lease.Fence] with a generator of the
// caller's own cannot move that generator, so it stays lost.
//
// During the gap, Next fails at once, without waiting, with an error
// wrapping [generator.ErrFenced] and [ErrLeaseExpired] (lapsed) or
// [ErrLeaseLost] (lost, healing); code that creates rows fails those
// creates and can retry them. No ID issued after a heal repeats an ID
// issued before it by this holder or by any other.
//
// From the coordinator being reachable again to IDs again takes at most
// about RenewEvery plus one renewal and one claim round trip: a renewal
// sent into the partition is abandoned after RenewEvery, the next comes
// RenewEvery/4 later, and a loss it reports is followed by a claim at
// once; a claim that outlasts TTL - Margin is retried RenewEvery later.
// With RenewEvery 150 ms against local servers the tests measured 3 to
// 80 ms, and 0.94 s once on an oversubscribed CPU, where a claim through a
// new connection outlasted TTL - Margin (600 ms).
//
// [LeaseOptions].Logger receives a record for each change of state, and
// [Lease.Stats] and [generator.Snowflake.Stats] give counts to export.
//
// # Tuning
//
// TTL is how long a crashed holder's node stays unusable, and the longest
// a holder keeps issuing without reaching the coordinator is TTL - Margin
// after its last successful renewal started. RenewEvery sets the
// coordinator's load, one small write per holder per RenewEvery (1,000
// holders renewing every 3.3 s, the default for a 10 s TTL, make about 300
// writes a second), and the time to heal. Margin must exceed clock-rate
// drift over one TTL and the longest pause between a generator's fence
// check and its issuing of an ID. A larger fleet can lengthen RenewEvery
// (and TTL with it) to cut load, at the cost of slower healing and
// longer-held dead nodes.
//
// # Coordinators
//
// A store must apply each claim, renewal and release atomically and keep
// every one it acknowledged, with expiry measured by one clock that does
// not run faster than the holders' clocks by more than Margin over a TTL.
// A coordinator failover or restart that loses acknowledged writes would
// break this: a lost claim or renewal can give one node to two holders, and
// a lost high-water mark lets a new holder issue IDs an earlier one issued.
// The stores of this module notice it (PostgreSQL's timeline, MySQL's and
// MariaDB's server ID, Redis's master replication ID) and start every
// claim's IDs after the holders they forgot can have issued:
// TTL + BorrowAhead + [LeaseOptions].MaxClockOffset later (see
// https://github.com/idkit-go/idkit/blob/main/docs/leases.md).
// Redis replication is asynchronous; waiting for replicas (WAIT) narrows
// the loss. PostgreSQL keeps acknowledged commits across a failover with
// synchronous replication (synchronous_commit on, or remote_apply, with
// synchronous_standby_names set) and failover only to a synchronous
// standby; MySQL and MariaDB with semi-synchronous replication waiting
// after sync (rpl_semi_sync_master_wait_point = AFTER_SYNC) and failover
// only to a replica that acknowledged. SQLite serves the processes of one
// host.
//
// Never delete rows of the lease table: a row keeps its node's high-water
// mark after release.
package node

// Package node provides node (worker, machine) IDs for the generators:
// sources that read one ([FromEnv], [FromPrivateIP], [FromStatefulSet]),
// one that is new on every start ([Disposable], for the Meteor generator),
// and leases that hand each ID to one live process at a time, kept in the
// application's SQL database (package
// [github.com/idkit-go/idkit/generator/node/sqllease]), in Redis (package
// [github.com/idkit-go/idkit/generator/node/redislease]), etcd, Kubernetes
// or any [Store] ([NewLease]). [NewSnowflake] makes the generator of a
// lease.
//
// A lease is trusted until TTL - Margin after its last successful renewal
// started; then its generator's Next fails with an error wrapping
// [generator.ErrFenced] until the lease heals. A new holder of a node
// never issues at or before the high-water mark earlier holders recorded.
// A request that cannot prove the store still holds what the lease saw (a
// failover to an asynchronous replica, a restart without its data, a
// restore) starts its claim's IDs after the store's clock plus the longest
// TTL + BorrowAhead + unit + [LeaseOptions].MaxClockOffset of the store's
// holders, when the holders it forgot have stopped. How leases renew, heal
// and what each coordinator guarantees:
// https://github.com/idkit-go/idkit/blob/main/docs/leases.md. Never delete a
// store's node records: a record keeps its node's high-water mark.
package node

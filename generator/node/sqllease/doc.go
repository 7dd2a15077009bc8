// Package sqllease keeps [node.Lease] records in a table of the
// application's own SQL database (PostgreSQL, MySQL/MariaDB or SQLite,
// through database/sql): pass [NewStore] to [node.NewLease] for a lease
// to use with [node.NewSnowflake].
//
// A node's row keeps its owner, expiry, high-water mark and version; rows
// -1 and -2 keep the server's identity, the horizon and the replicas
// recorded for it. Expiry is by the server's clock. A failover, a restart
// without data or a restore that loses writes changes the identity or
// the version a lease saw, and the next claim waits out the longest
// horizon of the table's holders. On a primary with replicas, claims and
// renewals wait until the replicas have the write, so a primary cut off
// by a promotion stops its holders. Never delete rows of the lease table:
// a row keeps its node's high-water mark.
// See https://github.com/idkit-go/idkit/blob/main/docs/leases.md
package sqllease

// Package segment is a segment (号段) ID allocator, as Meituan Leaf's: a
// database row per business tag holds max_id; each allocator takes step IDs
// at a time with one atomic statement and hands them out from memory,
// prefetching the next segment in the background (double buffer). It runs
// on PostgreSQL, MySQL/MariaDB and SQLite through database/sql.
//
// Adaptive step: each fetch doubles the step (up to MaxStep) when the
// previous segment was used in less than Grow (15 minutes), and halves it
// (down to Step) when it lasted more than Shrink (30 minutes), so a busy
// tag fetches rarely and a quiet one wastes few IDs on restart.
//
// Availability: while the database is unreachable the allocator keeps
// serving from both buffered segments; Next fails only when both are empty.
// Unlike Leaf, a caller that finds both empty waits for the fetch in flight
// rather than failing with "both segments not ready".
package segment

// Package segment is a segment (号段) ID allocator, as Meituan Leaf's: a
// database row per business tag holds max_id, and each [Allocator] takes
// step IDs at a time with one atomic statement, hands them out from memory
// and prefetches the next segment in the background. It runs on
// PostgreSQL, MySQL/MariaDB and SQLite through database/sql. See
// https://github.com/idkit-go/idkit/blob/main/docs/generators.md#segments
package segment

// Package bun tests the ID types through github.com/uptrace/bun on
// PostgreSQL, MariaDB/MySQL and SQLite, written as a user would from
// docs/bun.md, in a module of its own so that idkit's module never requires
// bun.
package bun

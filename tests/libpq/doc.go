// Package libpq tests the idkit types with github.com/lib/pq, which idkit's
// module does not require: what docs/sql.md tells a lib/pq user about
// types.UUID in a PostgreSQL uuid column.
package libpq

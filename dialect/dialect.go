// Package dialect names the SQL dialects that idkit's SQL code speaks. It
// imports nothing but the standard library, so that code naming a dialect
// (for [github.com/idkit-go/idkit/generator/segment.Options] or a node
// lease store) compiles no GORM and no driver.
package dialect

// Dialect is an SQL dialect, named as GORM's dialectors name themselves
// (Dialector.Name()), so that dialect.Dialect(db.Dialector.Name())
// converts a GORM handle's dialect. Where a *sql.DB is at hand, the zero
// value means "detect it from the driver".
type Dialect string

// The dialects.
const (
	Postgres  Dialect = "postgres"
	MySQL     Dialect = "mysql" // also MariaDB
	SQLite    Dialect = "sqlite"
	SQLServer Dialect = "sqlserver"
)

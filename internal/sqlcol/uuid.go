package sqlcol

// UUID returns the column type of a raw 16-byte UUID: uuid (PostgreSQL),
// binary(16) (MySQL/MariaDB, SQL Server: its uniqueidentifier reorders
// bytes), blob (SQLite), and "" for a dialect it does not know.
func UUID(d Dialect) string {
	switch d {
	case Postgres:
		return "uuid"
	case MySQL, SQLServer:
		return "binary(16)"
	case SQLite:
		return "blob"
	}
	return ""
}

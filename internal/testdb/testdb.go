// Package testdb connects tests to the real database servers idkit supports
// and gives each test names of its own.
//
// DSNs come from the environment, with the local services as defaults:
//
//	IDKIT_POSTGRES_DSN  host=127.0.0.1 port=5432 user=postgres dbname=test sslmode=disable
//	IDKIT_MYSQL_DSN     root@tcp(127.0.0.1:3306)/test?parseTime=true&multiStatements=true
//	IDKIT_REDIS_ADDR    127.0.0.1:6379
//
// When a server cannot be reached the test is skipped, unless the CI
// environment variable is set: then a missing server fails the test. A
// server found unreachable is not dialled again by the same test binary.
// Packages with server tests call [Main] from TestMain, which prints one
// line saying how many tests each missing server skipped and why:
//
//	func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }
package testdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // registers "mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "modernc.org/sqlite"             // registers "sqlite" (pure Go: no cgo)
)

// PostgresDSN returns the PostgreSQL DSN for tests.
func PostgresDSN() string {
	return env("IDKIT_POSTGRES_DSN", "host=127.0.0.1 port=5432 user=postgres dbname=test sslmode=disable")
}

// MySQLDSN returns the MySQL/MariaDB DSN (go-sql-driver format) for tests.
func MySQLDSN() string {
	return env("IDKIT_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/test?parseTime=true&multiStatements=true")
}

// RedisAddr returns the Redis address for tests.
func RedisAddr() string { return env("IDKIT_REDIS_ADDR", "127.0.0.1:6379") }

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// InCI reports whether the CI environment variable is set.
func InCI() bool { return os.Getenv("CI") != "" }

// Unavailable skips t, or fails it under CI, because a server is missing,
// and records the skip for [Main]'s summary. Later calls of [Postgres],
// [MySQL] and [RequireRedis] for that server skip at once.
func Unavailable(t testing.TB, server string, err error) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s is required when CI is set: %v", server, err)
	}
	recordSkip(server, err)
	t.Skipf("%s not available: %v", server, err)
}

// Postgres opens the test PostgreSQL database with database/sql (driver
// "pgx") and closes it when t ends.
func Postgres(t testing.TB) *sql.DB { return open(t, "PostgreSQL", "pgx", PostgresDSN()) }

// MySQL opens the test MySQL/MariaDB database with database/sql (driver
// "mysql") and closes it when t ends.
func MySQL(t testing.TB) *sql.DB { return open(t, "MariaDB", "mysql", MySQLDSN()) }

// SQLiteDriver is the database/sql driver name tests open SQLite with:
// modernc.org/sqlite, a pure-Go SQLite, so tests build without a C compiler.
const SQLiteDriver = "sqlite"

// SQLite opens a fresh SQLite database in t's temporary directory (driver
// [SQLiteDriver]) and closes it when t ends.
func SQLite(t testing.TB) *sql.DB {
	return open(t, "SQLite", SQLiteDriver, SQLiteDSN(t))
}

// SQLiteDSN returns the DSN (modernc.org/sqlite format) of a fresh SQLite
// database file in t's temporary directory, in WAL mode with a busy timeout
// so concurrent writers wait instead of fail.
func SQLiteDSN(t testing.TB) string {
	return "file:" + t.TempDir() + "/test.db?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
}

// RequireRedis returns the Redis address after checking it accepts
// connections; it skips or fails t as [Unavailable] does.
func RequireRedis(t testing.TB) string {
	t.Helper()
	addr := RedisAddr()
	if err := down("Redis"); err != nil {
		Unavailable(t, "Redis", err)
	}
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		Unavailable(t, "Redis", err)
	}
	c.Close()
	return addr
}

func open(t testing.TB, server, driver, dsn string) *sql.DB {
	t.Helper()
	if err := down(server); err != nil {
		Unavailable(t, server, err)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatalf("open %s: %v", server, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		Unavailable(t, server, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Name returns a table or key name unique to this test run: prefix, an
// underscore and 8 random hex digits, in lower case. Test packages run in
// parallel against the same servers, so every test names its own tables.
func Name(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return strings.ToLower(prefix) + "_" + hex.EncodeToString(b[:])
}

package bun_test

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	"github.com/idkit-go/idkit/dialect"
	"github.com/idkit-go/idkit/internal/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// server is one database with a namespace of its own for one test: a
// schema on PostgreSQL, a database on MariaDB, a fresh file on SQLite, so
// that the models' table names can stay as a user writes them.
type server struct {
	name string
	d    dialect.Dialect // idkit's name for the dialect, for sqltypes
	db   *bun.DB
	raw  *sql.DB // the same namespace through database/sql alone
}

// servers runs f once per database, each in a subtest of its own.
func servers(t *testing.T, f func(t *testing.T, s server)) {
	t.Run("PostgreSQL", func(t *testing.T) { f(t, postgres(t)) })
	t.Run("MariaDB", func(t *testing.T) { f(t, mariadb(t)) })
	t.Run("SQLite", func(t *testing.T) { f(t, sqlite(t)) })
}

func postgres(t *testing.T) server {
	admin := testdb.Postgres(t) // skips, or fails under CI, without a server
	ns := testdb.Name("bun47")
	mustExec(t, admin, "CREATE SCHEMA "+ns)
	t.Cleanup(func() { _, _ = admin.Exec("DROP SCHEMA " + ns + " CASCADE") })
	raw, err := sql.Open("pgx", testdb.PostgresDSN()+" search_path="+ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return server{name: "PostgreSQL", d: dialect.Postgres, db: bun.NewDB(raw, pgdialect.New()), raw: raw}
}

func mariadb(t *testing.T) server {
	admin := testdb.MySQL(t)
	ns := testdb.Name("bun47")
	mustExec(t, admin, "CREATE DATABASE "+ns)
	t.Cleanup(func() { _, _ = admin.Exec("DROP DATABASE " + ns) })
	cfg, err := mysql.ParseDSN(testdb.MySQLDSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = ns
	raw, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return server{name: "MariaDB", d: dialect.MySQL, db: bun.NewDB(raw, mysqldialect.New()), raw: raw}
}

func sqlite(t *testing.T) server {
	raw := testdb.SQLite(t)
	return server{name: "SQLite", d: dialect.SQLite, db: bun.NewDB(raw, sqlitedialect.New()), raw: raw}
}

func mustExec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// columnTypes returns the column types of table as the database reports
// them, in lower case: information_schema's data_type on PostgreSQL,
// column_type on MariaDB, the declared type on SQLite.
func columnTypes(t *testing.T, s server, table string) map[string]string {
	t.Helper()
	var query string
	switch s.d {
	case dialect.Postgres:
		query = "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1"
	case dialect.MySQL:
		query = "SELECT column_name, column_type FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?"
	default:
		query = "SELECT name, type FROM pragma_table_info(?)"
	}
	rows, err := s.raw.QueryContext(context.Background(), query, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			t.Fatal(err)
		}
		got[name] = strings.ToLower(typ)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 {
		t.Fatalf("table %s has no columns", table)
	}
	return got
}

// rawColumn reads column col of every row of table as the driver returns
// it, with no Scan method between, ordered by the column: the values the
// database holds.
func rawColumn[T any](t *testing.T, s server, table, col string) []T {
	t.Helper()
	rows, err := s.raw.Query("SELECT " + col + " FROM " + table + " ORDER BY " + col)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

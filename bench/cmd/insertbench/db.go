package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"

	_ "github.com/go-sql-driver/mysql" // registers "mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	_ "modernc.org/sqlite" // registers "sqlite" (pure Go)

	"github.com/idkit-go/idkit/pgxtypes"
)

// server is one database the benchmark inserts into.
type server struct {
	name, label string
	driver, dsn string
	pgxRegister bool // PostgreSQL: pgxtypes.Register on every connection
	db          *sql.DB
	version     string
	backendPID  int // the process whose CPU time counts as the server's
	backendTID  int // on MariaDB, the server thread serving this connection
}

// open connects to s with exactly one connection, so that the server
// process serving it stays the same.
func (s *server) open(ctx context.Context) error {
	db, err := s.openPool()
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return fmt.Errorf("%s: %w", s.label, err)
	}
	s.db = db
	switch s.name {
	case "postgres":
		err = db.QueryRowContext(ctx, "SELECT current_setting('server_version'), pg_backend_pid()").Scan(&s.version, &s.backendPID)
		s.version = "PostgreSQL " + strings.Fields(s.version)[0]
	case "mariadb":
		err = db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&s.version)
		s.version = "MariaDB " + strings.SplitN(s.version, "-", 2)[0]
		if err == nil {
			err = db.QueryRowContext(ctx, "SELECT TID FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()").Scan(&s.backendTID)
		}
	case "sqlite":
		err = db.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&s.version)
		s.version = "SQLite " + s.version
	}
	return err
}

// openPool returns s's connection pool; on PostgreSQL with pgxRegister,
// every connection has idkit's types registered with pgxtypes.Register.
func (s *server) openPool() (*sql.DB, error) {
	if s.name != "postgres" || !s.pgxRegister {
		return sql.Open(s.driver, s.dsn)
	}
	cfg, err := pgx.ParseConfig(s.dsn)
	if err != nil {
		return nil, err
	}
	return stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(func(_ context.Context, c *pgx.Conn) error {
		pgxtypes.Register(c.TypeMap())
		return nil
	})), nil
}

// gormDB returns a GORM handle on s's connection pool, with GORM's
// PrepareStmt if prepare and SkipDefaultTransaction if autocommit.
func (s *server) gormDB(prepare, autocommit bool) (*gorm.DB, error) {
	var d gorm.Dialector
	switch s.name {
	case "postgres":
		d = postgres.New(postgres.Config{Conn: s.db})
	case "mariadb":
		d = mysql.New(mysql.Config{Conn: s.db})
	default:
		d = sqlite.New(sqlite.Config{DriverName: "sqlite", Conn: s.db})
	}
	return gorm.Open(d, &gorm.Config{PrepareStmt: prepare, SkipDefaultTransaction: autocommit})
}

// placeholders returns the VALUES list of a multi-row INSERT of rows rows
// of cols columns.
func (s *server) placeholders(rows, cols int) string {
	var b strings.Builder
	n := 0
	for r := range rows {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteByte(',')
			}
			n++
			if s.name == "postgres" {
				b.WriteString("$" + strconv.Itoa(n))
			} else {
				b.WriteByte('?')
			}
		}
		b.WriteByte(')')
	}
	return b.String()
}

// createTable drops and creates table with key column column.
func (s *server) createTable(ctx context.Context, table, column string) error {
	if err := s.dropTable(ctx, table); err != nil {
		return err
	}
	payload := "text NOT NULL"
	suffix := ""
	if s.name == "mariadb" {
		payload, suffix = "VARCHAR(1024) NOT NULL", " ENGINE=InnoDB"
	}
	_, err := s.db.ExecContext(ctx, fmt.Sprintf("CREATE TABLE %s (id %s, payload %s)%s", table, column, payload, suffix))
	return err
}

func (s *server) dropTable(ctx context.Context, table string) error {
	_, err := s.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+table)
	return err
}

// settle brings the server to the same state before every run: on
// PostgreSQL a CHECKPOINT, so that no run pays for another's dirty pages or
// starts with a different share of full-page images in its WAL.
func (s *server) settle(ctx context.Context) error {
	if s.name == "postgres" {
		_, err := s.db.ExecContext(ctx, "CHECKPOINT")
		return err
	}
	return nil
}

// walLSN returns PostgreSQL's current WAL position in bytes, or 0 elsewhere.
func (s *server) walLSN(ctx context.Context) (int64, error) {
	if s.name != "postgres" {
		return 0, nil
	}
	var n int64
	err := s.db.QueryRowContext(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint").Scan(&n)
	return n, err
}

// sizes returns the bytes of table's primary key and of the whole table:
// on PostgreSQL the pkey index and the heap plus its indexes; on InnoDB the
// clustered index (data_length, which holds the rows) and data_length plus
// index_length, after ANALYZE TABLE refreshes them; on SQLite 0 and the
// file's pages in use.
func (s *server) sizes(ctx context.Context, table string) (pk, total int64, err error) {
	switch s.name {
	case "postgres":
		err = s.db.QueryRowContext(ctx, fmt.Sprintf("SELECT pg_relation_size('%s_pkey'), pg_total_relation_size('%s')", table, table)).Scan(&pk, &total)
	case "mariadb":
		if _, err = s.db.ExecContext(ctx, "ANALYZE TABLE "+table); err != nil {
			return 0, 0, err
		}
		var idx int64
		err = s.db.QueryRowContext(ctx, "SELECT data_length, index_length FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?", table).Scan(&pk, &idx)
		total = pk + idx
	case "sqlite":
		var pages, free, size int64
		if err = s.db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err == nil {
			if err = s.db.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&free); err == nil {
				err = s.db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size)
			}
		}
		total = (pages - free) * size
	}
	return pk, total, err
}

// serverCPU returns the CPU time in seconds the server has spent serving
// this connection, or 0 when there is none to read: on PostgreSQL its
// backend process, on MariaDB its thread (one thread per connection, the
// default; InnoDB's background threads are not counted).
func (s *server) serverCPU() float64 {
	switch {
	case s.backendTID != 0: // a thread ID names its thread under /proc/<tid>/task too
		return procCPU(fmt.Sprintf("/proc/%d/task/%d/stat", s.backendTID, s.backendTID))
	case s.backendPID != 0:
		return procCPU(fmt.Sprintf("/proc/%d/stat", s.backendPID))
	}
	return 0
}

// procCPU returns the user plus system CPU seconds of the process or thread
// whose stat file (/proc/pid/stat, /proc/pid/task/tid/stat) is path, in
// clock ticks of 1/100 s, or 0.
func procCPU(path string) float64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: count fields
	// from after its closing parenthesis (field 3 onwards).
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return float64(utime+stime) / 100
}

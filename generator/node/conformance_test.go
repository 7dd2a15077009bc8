package node_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/nodetest"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/internal/testservers"
)

// The conformance suite of package nodetest on the SQL stores: PostgreSQL
// and MariaDB on private servers (asynchronous PostgreSQL replicas and
// semi-synchronous MariaDB ones, fed through a proxy that Detach cuts),
// SQLite on a fresh file with no settings.

// leaseTable is the SQL store's default table.
const leaseTable = "idkit_node_leases"

type dialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// sqlServers is one case's servers of a replicated SQL database.
type sqlServers struct {
	primary  string
	replicas []string
	links    []*tcpproxy.Proxy
	promoted atomic.Bool
	exec     func(t *testing.T, q string) string // on the primary
}

// sqlHarness is the harness of a replicated SQL database: start starts
// a primary, replicate a replica of it through a link, and the rest act on
// the servers of *s.
type sqlHarness struct {
	s         *sqlServers
	opts      sqllease.StoreOptions
	begin     string // opens the restore's transaction ({t}: the table)
	open      func(t *testing.T, addr string, dial dialFunc) *sql.DB
	start     func(t *testing.T) (addr string, exec func(t *testing.T, q string) string)
	replicate func(t *testing.T, via string) (addr string)
	caughtUp  func(t *testing.T, replica int)
	promote   func(t *testing.T, replica int)
	kill      func(t *testing.T)
	restart   func(t *testing.T, keep bool)
	far       string // an expires_at centuries ahead, as a literal
}

func (h *sqlHarness) harness() nodetest.Harness {
	return nodetest.Harness{
		SetsKept: true,
		Start: func(t *testing.T) {
			h.s = &sqlServers{}
			h.s.primary, h.s.exec = h.start(t)
		},
		Store: func(t *testing.T, dial dialFunc) node.Store {
			s := sqllease.NewStore(h.open(t, h.s.primary, dial), h.opts)
			return s
		},
		Route: func(addr string) string {
			if addr == h.s.primary && h.s.promoted.Load() {
				return h.s.replicas[0]
			}
			return addr
		},
		Replicate: func(t *testing.T) {
			l := tcpproxy.Start(t, h.s.primary)
			h.s.links = append(h.s.links, l)
			h.s.replicas = append(h.s.replicas, h.replicate(t, l.Addr()))
		},
		CaughtUp: func(t *testing.T) {
			for i := range h.s.replicas {
				if i > 0 || !h.s.promoted.Load() {
					h.caughtUp(t, i)
				}
			}
		},
		Detach: func(t *testing.T) { h.s.links[0].Cut() },
		Promote: func(t *testing.T) {
			h.promote(t, 0)
			h.s.promoted.Store(true)
		},
		Kill:    func(t *testing.T) { h.kill(t) },
		Restart: func(t *testing.T, keep bool) { h.restart(t, keep) },
		Snapshot: func(t *testing.T) func(t *testing.T, step bool) {
			return sqlSnapshot(t, h.s.exec, h.begin)
		},
		Forget: func(t *testing.T) { h.s.exec(t, "DELETE FROM "+leaseTable+" WHERE node = -1") },
		Corrupt: func(t *testing.T, n int64, i int) (string, func(t *testing.T)) {
			return sqlCorrupt(t, h.s.exec, h.far, n, i)
		},
	}
}

// sqlCorrupt writes into the i-th field node n's row depends on a value
// out of the store's bounds (sqllease's bounds.go): the node's mark in
// 2261, its version at the largest BIGINT, its expiry centuries ahead
// (far), then the identity row's mark in 2261 and its horizon near 2^63 ns,
// which would wrap the wait after a loss. exec runs SQL on the database
// and returns a SELECT's value.
func sqlCorrupt(t *testing.T, exec func(t *testing.T, q string) string, far string, n int64, i int) (string, func(t *testing.T)) {
	const in2261 = "9200000000000000000"
	fields := []struct {
		name, col, value string
		row              int64
	}{
		{fmt.Sprintf("hwm_ns of node %d", n), "hwm_ns", in2261, n},
		{fmt.Sprintf("version of node %d", n), "version", "9223372036854775807", n},
		{fmt.Sprintf("expires_at of node %d", n), "expires_at", far, n},
		{"hwm_ns of the identity row", "hwm_ns", in2261, -1},
		{"version of the identity row", "version", "8000000000000000000", -1},
	}
	if i >= len(fields) {
		return "", nil
	}
	f := fields[i]
	where := fmt.Sprintf(" WHERE node = %d", f.row)
	old := exec(t, "SELECT "+f.col+" FROM "+leaseTable+where)
	exec(t, "UPDATE "+leaseTable+" SET "+f.col+" = "+f.value+where)
	if f.row >= 0 {
		return f.name, nil // the node's own: the store heals it
	}
	return f.name, func(t *testing.T) { exec(t, "UPDATE "+leaseTable+" SET "+f.col+" = "+old+where) }
}

// sqlSnapshot copies the lease table aside; the restore puts the copy
// back in one transaction that begin opens ({t}: the table; as a restore that keeps the
// server's identity), and runs the operator step of docs/leases.md if
// step.
func sqlSnapshot(t *testing.T, exec func(t *testing.T, q string) string, begin string) func(t *testing.T, step bool) {
	tb := leaseTable
	exec(t, "DROP TABLE IF EXISTS "+tb+"_copy")
	exec(t, "CREATE TABLE "+tb+"_copy AS SELECT * FROM "+tb)
	return func(t *testing.T, step bool) {
		q := strings.ReplaceAll(begin, "{t}", tb) + " DELETE FROM " + tb + "; INSERT INTO " + tb + " SELECT * FROM " + tb + "_copy;"
		if step {
			q += " UPDATE " + tb + " SET owner = 'restored' WHERE node = -1;"
		}
		exec(t, q+" COMMIT")
	}
}

func postgresHarness() nodetest.Harness {
	var primary *testservers.Postgres
	var replicas []*testservers.Postgres
	h := &sqlHarness{
		open: func(t *testing.T, addr string, dial dialFunc) *sql.DB {
			cfg, err := pgx.ParseConfig(testservers.PostgresDSN(addr))
			if err != nil {
				t.Fatal(err)
			}
			cfg.DialFunc = pgconn.DialFunc(dial)
			db := stdlib.OpenDB(*cfg)
			t.Cleanup(func() { db.Close() })
			return db
		},
		start: func(t *testing.T) (string, func(t *testing.T, q string) string) {
			primary, replicas = testservers.StartPostgres(t), nil
			p := primary
			return p.Addr(), func(t *testing.T, q string) string { return p.Psql(t, q) }
		},
		replicate: func(t *testing.T, via string) string {
			r := primary.Replica(t, via)
			replicas = append(replicas, r)
			return r.Addr()
		},
		caughtUp: func(t *testing.T, i int) { primary.CaughtUp(t, replicas[i]) },
		promote:  func(t *testing.T, i int) { replicas[i].Promote(t) },
		kill:     func(t *testing.T) { primary.Kill(t) },
		restart:  func(t *testing.T, keep bool) { primary.Restart(t, keep) },
		begin:    "BEGIN; LOCK TABLE {t} IN ACCESS EXCLUSIVE MODE;",
		far:      "'2261-01-01 00:00:00+00'",
	}
	return h.harness()
}

// mysqlNets numbers the dialers registered with the MySQL driver.
var mysqlNets atomic.Int64

func mariadbHarness() nodetest.Harness { return mariadb(false) }

// mariadbSplitHarness runs the failovers on asynchronous replicas, which
// the store accepts only with AllowSplitBrain: the identity check and the
// wait-out still cover a failover whose old primary stops serving.
func mariadbSplitHarness() nodetest.Harness {
	h := mariadb(true)
	why := "run by the semi-synchronous harness; this one adds the failovers that AllowSplitBrain lets happen"
	h.Unsupported = map[string]string{
		"SplitBrain":                         "AllowSplitBrain accepts it (docs/leases.md#split-brain)",
		"Failover/mixed-ttl-lost-with-claim": "AllowSplitBrain accepts a horizon lost with its claim (docs/leases.md#split-brain)",
		// Run, it repeated 305,381 IDs of 884,608, as its TTL twin does.
		"Failover/mixed-max-outage-lost-with-claim": "AllowSplitBrain accepts a horizon lost with its claim (docs/leases.md#split-brain)",
		"Failover/lossless":                         "asynchronous replicas: a failover may lose the last renewals, so the holders wait the horizon",
		"Failover/lossless-answer-lost":             "asynchronous replicas: a failover may lose the last renewals, so the holders wait the horizon",
		"Restart":                                   why, "Restore": why, "Corrupt": why, "IdentityDeleted": why,
		"EightHandles": why, "Partition": why, "Pause": why,
	}
	return h
}

// mariadb is the MariaDB harness: replicas semi-synchronous, or
// asynchronous with AllowSplitBrain (split).
func mariadb(split bool) nodetest.Harness {
	var primary *testservers.MariaDB
	var replicas []*testservers.MariaDB
	h := &sqlHarness{
		open: func(t *testing.T, addr string, dial dialFunc) *sql.DB {
			cfg, err := mysql.ParseDSN(testservers.MySQLDSN(addr))
			if err != nil {
				t.Fatal(err)
			}
			cfg.Net = fmt.Sprintf("nodetest%d", mysqlNets.Add(1))
			mysql.RegisterDialContext(cfg.Net, func(ctx context.Context, addr string) (net.Conn, error) {
				return dial(ctx, "tcp", addr)
			})
			c, err := mysql.NewConnector(cfg)
			if err != nil {
				t.Fatal(err)
			}
			db := sql.OpenDB(c)
			t.Cleanup(func() { db.Close() })
			return db
		},
		start: func(t *testing.T) (string, func(t *testing.T, q string) string) {
			primary, replicas = testservers.StartMariaDB(t, 1), nil
			p := primary
			return p.Addr(), func(t *testing.T, q string) string { return p.SQL(t, "USE test; "+q) }
		},
		// Semi-synchronous, as the store requires of a primary with
		// replicas (testservers.MariaDB.ReplicateSemiSyncFrom).
		replicate: func(t *testing.T, via string) string {
			r := testservers.StartMariaDB(t, 2+len(replicas))
			if split {
				r.ReplicateFrom(t, via)
			} else {
				r.ReplicateSemiSyncFrom(t, primary, via)
			}
			replicas = append(replicas, r)
			return r.Addr()
		},
		caughtUp: func(t *testing.T, i int) { primary.CaughtUp(t, replicas[i]) },
		promote:  func(t *testing.T, i int) { replicas[i].Promote(t) },
		kill:     func(t *testing.T) { primary.Kill(t) },
		restart:  func(t *testing.T, keep bool) { primary.Restart(t, keep) },
		opts:     sqllease.StoreOptions{AllowSplitBrain: split},
		begin:    "START TRANSACTION;",
		far:      "'2261-01-01 00:00:00'",
	}
	return h.harness()
}

// sqliteHarness: a fresh file per case, opened with no settings, as the
// docs say SQLite needs.
func sqliteHarness() nodetest.Harness {
	var mu sync.Mutex
	var dsn string
	var db *sql.DB
	handles := map[node.Store]*sql.DB{}
	exec := func(t *testing.T, q string) string {
		if strings.HasPrefix(q, "SELECT ") {
			var v string
			if err := db.QueryRow(q).Scan(&v); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			return v
		}
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return ""
	}
	open := func(t *testing.T) *sql.DB {
		mu.Lock()
		defer mu.Unlock()
		h, err := sql.Open(testdb.SQLiteDriver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	return nodetest.Harness{
		SetsKept: true,
		Start: func(t *testing.T) {
			dsn = "file:" + t.TempDir() + "/leases.db"
			var err error
			db, err = sql.Open(testdb.SQLiteDriver, dsn+"?_pragma=busy_timeout(10000)") // the harness's own handle waits
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
		},
		Store: func(t *testing.T, _ dialFunc) node.Store {
			h := open(t)
			s := sqllease.NewStore(h, sqllease.StoreOptions{})
			mu.Lock()
			handles[s] = h
			mu.Unlock()
			return s
		},
		// A holder cut off from the file: its statements fail from now on.
		Unplug: func(s node.Store) {
			mu.Lock()
			h := handles[s]
			mu.Unlock()
			h.Close()
		},
		Snapshot: func(t *testing.T) func(t *testing.T, step bool) { return sqlSnapshot(t, exec, "BEGIN IMMEDIATE;") },
		Forget:   func(t *testing.T) { exec(t, "DELETE FROM "+leaseTable+" WHERE node = -1") },
		Corrupt: func(t *testing.T, n int64, i int) (string, func(t *testing.T)) {
			return sqlCorrupt(t, exec, "9200000000000", n, i) // Unix ms in 2261
		},
		Unsupported: map[string]string{
			"Replicate": "SQLite has no replicas",
			"Restart":   "SQLite has no server: a committed transaction survives the process",
		},
	}
}

func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	t.Run("postgres", func(t *testing.T) { t.Parallel(); nodetest.Run(t, noProtocol(postgresHarness)) })
	t.Run("mariadb", func(t *testing.T) { t.Parallel(); nodetest.Run(t, noProtocol(mariadbHarness)) })
	t.Run("mariadb-allow-split-brain", func(t *testing.T) { t.Parallel(); nodetest.Run(t, noProtocol(mariadbSplitHarness)) })
	t.Run("sqlite", func(t *testing.T) { t.Parallel(); nodetest.Run(t, noProtocol(sqliteHarness)) })
}

// noProtocol leaves the protocol cases to TestProtocol, which runs them on
// the shared servers in seconds.
func noProtocol(h func() nodetest.Harness) func() nodetest.Harness {
	return func() nodetest.Harness {
		x := h()
		if x.Unsupported == nil {
			x.Unsupported = map[string]string{}
		}
		x.Unsupported["Protocol"] = "TestProtocol runs the protocol cases on the shared servers"
		return x
	}
}

// TestProtocol runs the protocol cases of package nodetest on the SQL
// stores of the shared PostgreSQL and MariaDB and on SQLite, each case on
// a table of its own (the fault cases of a Store-only harness are
// TestConformance's).
func TestProtocol(t *testing.T) {
	why := "TestConformance runs it on a server of its own"
	for _, d := range []struct {
		name string
		open func(testing.TB) *sql.DB
	}{{"postgres", testdb.Postgres}, {"mariadb", testdb.MySQL}, {"sqlite", testdb.SQLite}} {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			db := d.open(t)
			nodetest.Run(t, func() nodetest.Harness {
				table := testdb.Name("proto")
				var once sync.Once
				var s node.Store
				return nodetest.Harness{
					SetsKept: true,
					// The store's connections are the database/sql pool's:
					// the protocol cases cut none.
					Store: func(t *testing.T, _ dialFunc) node.Store {
						once.Do(func() {
							s = sqllease.NewStore(db, sqllease.StoreOptions{Table: table})
							t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + table) })
						})
						return s
					},
					Unsupported: map[string]string{"EightHandles": why, "Partition": why, "Pause": why},
				}
			})
		})
	}
}

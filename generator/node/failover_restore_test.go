package node_test

import (
	"context"
	"database/sql"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/internal/testservers"
	"github.com/idkit-go/idkit/types"
)

// restorable is a lease table reached directly and through a proxy, which
// a test backs up and restores with SQL, as a restore that keeps the
// server's identity (a base backup started without archive recovery, a
// MySQL/MariaDB dump) does.
type restorable struct {
	db, via *sql.DB
	proxy   *tcpproxy.Proxy
	table   string
	// target is the server's address; open opens a handle through addr.
	target string
	open   func(t *testing.T, addr string) *sql.DB
}

func restorables() []struct {
	name string
	make func(t *testing.T) restorable
} {
	return []struct {
		name string
		make func(t *testing.T) restorable
	}{{"postgres", func(t *testing.T) restorable {
		db := testdb.Postgres(t)
		cfg, err := pgx.ParseConfig(testdb.PostgresDSN())
		require.NoError(t, err)
		target := net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
		open := func(t *testing.T, addr string) *sql.DB {
			c := cfg.Copy()
			host, port, _ := net.SplitHostPort(addr)
			n, _ := strconv.Atoi(port)
			c.Host, c.Port, c.ConnectTimeout = host, uint16(n), time.Second
			h := stdlib.OpenDB(*c)
			t.Cleanup(func() { h.Close() })
			return h
		}
		return newRestorable(t, db, target, open)
	}}, {"mariadb", func(t *testing.T) restorable {
		db := testdb.MySQL(t)
		cfg, err := mysql.ParseDSN(testdb.MySQLDSN())
		require.NoError(t, err)
		open := func(t *testing.T, addr string) *sql.DB {
			c := cfg.Clone()
			c.Addr, c.Timeout = addr, time.Second
			h, err := sql.Open("mysql", c.FormatDSN())
			require.NoError(t, err)
			t.Cleanup(func() { h.Close() })
			return h
		}
		return newRestorable(t, db, cfg.Addr, open)
	}}}
}

func newRestorable(t *testing.T, db *sql.DB, target string, open func(t *testing.T, addr string) *sql.DB) restorable {
	p := tcpproxy.Start(t, target)
	r := restorable{db: db, via: open(t, p.Addr()), proxy: p, table: testdb.Name("lease"), target: target, open: open}
	t.Cleanup(func() {
		_, _ = db.Exec("DROP TABLE IF EXISTS " + r.table)
		_, _ = db.Exec("DROP TABLE IF EXISTS " + r.table + "_bak")
	})
	return r
}

func (r restorable) exec(t *testing.T, q string) {
	t.Helper()
	_, err := r.db.Exec(q)
	require.NoError(t, err)
}

// backup copies the table's rows aside; restore puts them back.
func (r restorable) backup(t *testing.T) {
	r.exec(t, "DROP TABLE IF EXISTS "+r.table+"_bak")
	r.exec(t, "CREATE TABLE "+r.table+"_bak AS SELECT * FROM "+r.table)
}

func (r restorable) restore(t *testing.T) {
	r.exec(t, "DELETE FROM "+r.table)
	r.exec(t, "INSERT INTO "+r.table+" SELECT * FROM "+r.table+"_bak")
}

func (r restorable) lease(t *testing.T, db *sql.DB, o leaseConf) *node.Lease {
	t.Helper()
	l, err := sqlLease(context.Background(), db, r.table, o)
	require.NoError(t, err)
	return l
}

// TestRestoreLiveLapsedHolder (case 9, holders alive): A lapses, C claims
// A's node, and the table is restored from a backup taken after A's last
// renewal, forgetting C's claim: A's row is back exactly as A saw it, but
// expired. A's renewal must not make A trust the node again.
func TestRestoreLiveLapsedHolder(t *testing.T) {
	t.Parallel()
	for _, c := range restorables() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := c.make(t)
			o := leaseConf{Layout: layout(t, 1), LeaseOptions: node.LeaseOptions{TTL: time.Second}}
			a := issue(t, r.lease(t, r.via, o))
			time.Sleep(o.TTL / 2)
			r.proxy.Blackhole()
			r.backup(t) // after A's last renewal
			time.Sleep(o.TTL + o.TTL/4)
			// C, through a path of its own, claims A's node; the restore
			// cuts C off (it issues until its lease lapses).
			pc := tcpproxy.Start(t, r.target)
			cl := r.lease(t, r.open(t, pc.Addr()), o)
			require.Equal(t, a.lease.Node(), cl.Node())
			ch := issue(t, cl)
			time.Sleep(o.TTL / 10)
			pc.Blackhole()
			r.restore(t)
			r.proxy.Restore()
			time.Sleep(2 * o.TTL)
			dups, n := duplicates(a.halt(), ch.halt())
			t.Logf("%s: %d duplicates of %d IDs", c.name, dups, n)
			require.Zero(t, dups)
		})
	}
}

// TestRestoreVersionNoticed (case 9, holders alive): a restore that rolls
// back a live holder's row makes its next renewal fail as a loss, and the
// store-wide mark it records makes a holder started afterwards wait.
func TestRestoreVersionNoticed(t *testing.T) {
	t.Parallel()
	for _, c := range restorables() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := c.make(t)
			o := leaseConf{Layout: layout(t, 1), LeaseOptions: node.LeaseOptions{TTL: time.Second}}
			a := issue(t, r.lease(t, r.via, o))
			r.backup(t)
			time.Sleep(3 * o.TTL / 2) // A renews: its version passes the backup's
			r.restore(t)
			deadline := time.Now().Add(o.TTL)
			for a.lease.Stats().Fences == 0 {
				require.True(t, time.Now().Before(deadline), "the holder did not notice the restore")
				time.Sleep(5 * time.Millisecond)
			}
			b := issue(t, r.lease(t, r.db, o))
			time.Sleep(2 * o.TTL)
			dups, n := duplicates(a.halt(), b.halt())
			t.Logf("%s: %d duplicates of %d IDs", c.name, dups, n)
			require.Zero(t, dups)
		})
	}
}

// TestRestoreOperatorStep (case 9, processes started after a restore): A
// claims after the backup, the restore forgets A's claim while A, cut off,
// still issues. The one step of docs/leases.md (mark the identity row
// restored) makes the next claim wait A out; without it B repeats A's IDs.
func TestRestoreOperatorStep(t *testing.T) {
	t.Parallel()
	for _, c := range restorables() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, step := range []bool{false, true} {
				r := c.make(t)
				// A trusts its lease for TTL - Margin after its last
				// renewal: 2.25 s for the restore and B's claim to land in,
				// on a busy machine too.
				o := leaseConf{Layout: layout(t, 1), LeaseOptions: node.LeaseOptions{TTL: 3 * time.Second}}
				w := r.lease(t, r.db, o) // creates the table
				require.NoError(t, w.Close(context.Background()))
				r.backup(t)
				a := issue(t, r.lease(t, r.via, o))
				time.Sleep(o.TTL / 4)
				r.proxy.Blackhole()
				r.restore(t)
				if step {
					r.exec(t, "UPDATE "+r.table+" SET owner = 'restored' WHERE node = -1")
				}
				b := issue(t, r.lease(t, r.db, o))
				time.Sleep(o.TTL + o.TTL/2)
				dups, n := duplicates(a.halt(), b.halt())
				t.Logf("%s, operator step %v: %d duplicates of %d IDs", c.name, step, dups, n)
				if step {
					require.Zero(t, dups)
				} else {
					require.NotZero(t, dups, "the scenario does not reproduce the loss")
				}
			}
		})
	}
}

// TestNewSnowflakeHealsDuringWait (case 5): a lease lost while NewSnowflake
// waits for the node's high-water mark heals, and the generator issues.
func TestNewSnowflakeHealsDuringWait(t *testing.T) {
	t.Parallel()
	for _, sm := range stores() {
		t.Run(sm.name, func(t *testing.T) {
			t.Parallel()
			s := sm.make(t)
			ctx := context.Background()
			o := short(t, 1)
			s.fake(t, 0, time.Now().Add(4*o.TTL))
			l, err := s.lease(ctx, o)
			require.NoError(t, err)
			defer l.Close(ctx)
			require.Equal(t, int64(0), l.Node())
			done := make(chan struct{})
			var g interface {
				Next() (types.Snowflake, error)
			}
			var gerr error
			go func() {
				defer close(done)
				gen, err := node.NewSnowflake(ctx, l)
				if err == nil {
					g = gen
				}
				gerr = err
			}()
			time.Sleep(2 * o.RenewEvery)
			s.steal(t, 0)
			<-done
			require.NoError(t, gerr)
			deadline := time.Now().Add(4*o.TTL + healSlack)
			for {
				if _, err := g.Next(); err == nil {
					break
				} else {
					require.True(t, time.Now().Before(deadline), "the generator never issued: %v", err)
				}
				time.Sleep(5 * time.Millisecond)
			}
			require.Equal(t, int64(1), l.Node(), "healed on the free node")
		})
	}
}

// TestWarningsReachDefaultLogger (case 10): without LeaseOptions.Logger the
// safety warnings go to slog.Default(), fsync = off among them.
func TestWarningsReachDefaultLogger(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	p := testservers.StartPostgres(t) // runs with fsync = off
	var buf syncBuffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(old)
	s := failoverStore(t, "pgx", testservers.PostgresDSN(p.Addr()))
	l, err := node.NewLease(context.Background(), s, node.LeaseOptions{})
	require.NoError(t, err)
	require.NoError(t, l.Close(context.Background()))
	out := buf.String()
	require.Contains(t, out, "level=WARN")
	require.Contains(t, out, "fsync = off", out)
	require.Equal(t, 1, strings.Count(out, "fsync = off"), out)
}

// TestLeaseTableFromBefore: a lease table made before the version column
// and the identity row at creation gets the column; its identity row,
// written by an earlier claim, keeps a start without a loss free of wait.
func TestLeaseTableFromBefore(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, create, ident string
		open                func(t testing.TB) *sql.DB
	}{
		{"postgres", `CREATE TABLE %s (node BIGINT PRIMARY KEY, owner VARCHAR(128) NOT NULL, expires_at TIMESTAMPTZ NOT NULL, hwm_ns BIGINT NOT NULL DEFAULT 0)`,
			`INSERT INTO %s VALUES (-1, (SELECT system_identifier::text FROM pg_control_system()) || '/' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8), to_timestamp(0), 0)`,
			testdb.Postgres},
		{"sqlite", `CREATE TABLE %s (node INTEGER NOT NULL PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL, hwm_ns INTEGER NOT NULL DEFAULT 0)`,
			`INSERT INTO %s VALUES (-1, '', 0, 0)`,
			func(t testing.TB) *sql.DB {
				db, err := sql.Open(testdb.SQLiteDriver, testdb.SQLiteDSN(t))
				require.NoError(t, err)
				t.Cleanup(func() { db.Close() })
				return db
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := c.open(t)
			table := testdb.Name("lease")
			t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + table) })
			_, err := db.Exec(strings.ReplaceAll(c.create, "%s", table))
			require.NoError(t, err)
			_, err = db.Exec(strings.ReplaceAll(c.ident, "%s", table))
			require.NoError(t, err)
			start := time.Now()
			l, err := sqlLease(context.Background(), db, table, leaseConf{Layout: layout(t, 2)})
			require.NoError(t, err)
			g, err := node.NewSnowflake(context.Background(), l)
			require.NoError(t, err)
			_, err = g.Next()
			require.NoError(t, err)
			require.Less(t, time.Since(start), 500*time.Millisecond, "no wait without a loss")
			require.NoError(t, l.Close(context.Background()))
		})
	}
}

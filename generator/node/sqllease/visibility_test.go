package sqllease_test

import (
	"context"
	"database/sql"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/testservers"
)

// open opens dsn with driver, closed when t ends.
func open(t *testing.T, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// claim makes a lease on db's default table, closed when t ends.
func claim(t *testing.T, db *sql.DB) (*node.Lease, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l, err := node.NewLease(ctx, sqllease.NewStore(db, sqllease.StoreOptions{}), node.LeaseOptions{TTL: 2 * time.Second})
	if err == nil {
		t.Cleanup(func() { _ = l.Close(context.Background()) })
	}
	return l, err
}

// TestPostgresRoleWithoutStats: an application role without pg_monitor
// sees the replica's row in pg_stat_replication with its state NULL, so it
// cannot tell that a replica streams nor wait for it: the lease is refused,
// naming the grant, where the store once counted no replica and let a
// promotion repeat IDs. With the grant, or AllowSplitBrain, it claims.
func TestPostgresRoleWithoutStats(t *testing.T) {
	t.Parallel()
	p := testservers.StartPostgres(t)
	r := p.Replica(t, p.Addr())
	p.CaughtUp(t, r)
	p.Psql(t, "CREATE ROLE app LOGIN; GRANT ALL ON SCHEMA public TO app")
	app := open(t, "pgx", strings.Replace(testservers.PostgresDSN(p.Addr()), "postgres@", "app@", 1))
	_, err := claim(t, app)
	if !errors.Is(err, generator.ErrInvalidConfig) || !strings.Contains(err.Error(), "pg_monitor") {
		t.Fatalf("a lease for a role that cannot see the replica: %v; want ErrInvalidConfig naming pg_monitor", err)
	}
	split := sqllease.NewStore(app, sqllease.StoreOptions{AllowSplitBrain: true})
	l, err := node.NewLease(context.Background(), split, node.LeaseOptions{TTL: 2 * time.Second})
	if err != nil {
		t.Fatalf("with AllowSplitBrain: %v", err)
	}
	_ = l.Close(context.Background())
	p.Psql(t, "GRANT pg_monitor TO app")
	granted := open(t, "pgx", strings.Replace(testservers.PostgresDSN(p.Addr()), "postgres@", "app@", 1)+"&application_name=granted")
	if _, err := claim(t, granted); err != nil {
		t.Fatalf("with pg_monitor: %v", err)
	}
}

// TestPostgresRoleWithoutStatsAfterPrivileged: a privileged process
// claims first on a healthy primary with a streaming replica (recording
// that the server has one), then the application's role, without
// pg_monitor, claims: it is refused naming the grant, where the store once
// counted no replica streaming and blamed "a replica that left" (a
// promotion) for a replica that is there.
func TestPostgresRoleWithoutStatsAfterPrivileged(t *testing.T) {
	t.Parallel()
	p := testservers.StartPostgres(t)
	r := p.Replica(t, p.Addr())
	p.CaughtUp(t, r)
	p.Psql(t, "CREATE ROLE app LOGIN; GRANT ALL ON SCHEMA public TO app")
	su := open(t, "pgx", testservers.PostgresDSN(p.Addr()))
	if _, err := claim(t, su); err != nil {
		t.Fatalf("the privileged claim: %v", err)
	}
	p.Psql(t, "GRANT ALL ON idkit_node_leases TO app")
	app := open(t, "pgx", strings.Replace(testservers.PostgresDSN(p.Addr()), "postgres@", "app@", 1))
	_, err := claim(t, app)
	t.Logf("the role without pg_monitor, after a privileged claim: %v", err)
	if !errors.Is(err, generator.ErrInvalidConfig) || !strings.Contains(err.Error(), "pg_monitor") || strings.Contains(err.Error(), "left") {
		t.Fatalf("a lease for a role that cannot see the replica, after a privileged claim: %v; want ErrInvalidConfig naming pg_monitor, not a replica that left", err)
	}
}

// TestPostgresBlindRoleWithoutStats: a role that can read neither the
// server's identity (EXECUTE on pg_control_system() revoked) nor
// pg_stat_replication's state is refused naming pg_monitor, as one that
// can read the identity is: the store once skipped counting the replicas
// when the identity could not be read, and so counted none.
func TestPostgresBlindRoleWithoutStats(t *testing.T) {
	t.Parallel()
	p := testservers.StartPostgres(t)
	r := p.Replica(t, p.Addr())
	p.CaughtUp(t, r)
	p.Psql(t, "REVOKE EXECUTE ON FUNCTION pg_control_system() FROM PUBLIC; CREATE ROLE app LOGIN; GRANT ALL ON SCHEMA public TO app")
	app := open(t, "pgx", strings.Replace(testservers.PostgresDSN(p.Addr()), "postgres@", "app@", 1))
	var n int
	if err := app.QueryRow("SELECT count(*) FROM pg_control_system()").Scan(&n); err == nil {
		t.Fatal("the role reads pg_control_system(); the case needs it not to")
	}
	_, err := claim(t, app)
	t.Logf("a role reading neither the identity nor the replicas: %v", err)
	if !errors.Is(err, generator.ErrInvalidConfig) || !strings.Contains(err.Error(), "pg_monitor") {
		t.Fatalf("a lease for a role that reads neither the identity nor the replicas: %v; want ErrInvalidConfig naming pg_monitor", err)
	}
}

// TestPostgresArchiverNotAReplica: pg_receivewal (Barman's streaming
// archiver) streams WAL from the primary but replays nothing and reports
// no replay_lsn: it is no failover target, so claims neither wait for it
// nor fail for want of its flush.
func TestPostgresArchiverNotAReplica(t *testing.T) {
	t.Parallel()
	p := testservers.StartPostgres(t)
	dir := t.TempDir()
	cmd := exec.Command(filepath.Join(testservers.PostgresBin, "pg_receivewal"), "-D", dir, "-d", testservers.PostgresDSN(p.Addr()), "--no-loop")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	db := open(t, "pgx", testservers.PostgresDSN(p.Addr()))
	deadline := time.Now().Add(20 * time.Second)
	for {
		var n int
		if err := db.QueryRow("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("pg_receivewal did not start streaming")
		}
		time.Sleep(50 * time.Millisecond)
	}
	started := time.Now()
	l, err := claim(t, db)
	if err != nil {
		t.Fatalf("a lease beside an archiver: %v", err)
	}
	g, err := node.NewSnowflake(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	// Renewals every TTL/3: three of them, none waiting for the archiver.
	time.Sleep(2500 * time.Millisecond)
	if _, err := g.Next(); err != nil {
		t.Fatalf("after renewals beside an archiver: %v (%+v)", err, l.Stats())
	}
	if st := l.Stats(); st.Failures != 0 {
		t.Fatalf("renewals failed beside an archiver: %+v", st)
	}
	t.Logf("claim and renewals beside pg_receivewal: %v, %+v", time.Since(started).Round(time.Millisecond), l.Stats())
}

// TestMariaDBUserWithoutProcess: a MariaDB user without PROCESS sees no
// Binlog Dump thread in information_schema.PROCESSLIST, so the store once
// counted no replica and let an asynchronous replica's promotion repeat
// IDs. It counts them from Slaves_connected, which every user reads, and
// refuses the asynchronous replica, naming the settings.
func TestMariaDBUserWithoutProcess(t *testing.T) {
	t.Parallel()
	p := testservers.StartMariaDB(t, 1)
	r := testservers.StartMariaDB(t, 2)
	r.ReplicateFrom(t, p.Addr())
	p.CaughtUp(t, r)
	p.SQL(t, "CREATE USER app@'%'; GRANT ALL ON test.* TO app@'%'")
	app := open(t, "mysql", strings.Replace(testservers.MySQLDSN(p.Addr()), "root@", "app@", 1))
	var visible int
	if err := app.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'").Scan(&visible); err != nil {
		t.Fatal(err)
	}
	if visible != 0 {
		t.Fatalf("the user without PROCESS sees %d Binlog Dump threads; the case needs none", visible)
	}
	_, err := claim(t, app)
	if !errors.Is(err, generator.ErrInvalidConfig) || !strings.Contains(err.Error(), "rpl_semi_sync_master_enabled") {
		t.Fatalf("a lease on an asynchronous replica's primary, without PROCESS: %v; want ErrInvalidConfig naming rpl_semi_sync_master_enabled", err)
	}
}

// binlogReader starts mariadb-binlog --read-from-remote-server
// --stop-never on p (a binary-log reader that does not register as a
// replica, as change-data-capture tools read), stopped when t ends, and
// waits until p shows its Binlog Dump thread beside the others it had. It
// returns the reader's stderr.
func binlogReader(t *testing.T, p *testservers.MariaDB, db *sql.DB) *strings.Builder {
	t.Helper()
	host, port, _ := strings.Cut(p.Addr(), ":")
	var first string
	if err := db.QueryRow("SELECT LOG_NAME FROM information_schema.BINLOG_STATUS").Scan(&first); err != nil {
		rows, err := db.Query("SHOW BINARY LOGS")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() && first == "" {
			var size any
			if err := rows.Scan(&first, &size); err != nil {
				t.Fatal(err)
			}
		}
		rows.Close()
	}
	const dumpThreads = "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'"
	var before int
	if err := db.QueryRow(dumpThreads).Scan(&before); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("mariadb-binlog", "--read-from-remote-server", "--stop-never", "-h", host, "-P", port, "-u", "root", "--result-file="+filepath.Join(t.TempDir(), "out"), first)
	stderr := new(strings.Builder)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	dumps := before
	for deadline := time.Now().Add(10 * time.Second); dumps == before && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		_ = db.QueryRow(dumpThreads).Scan(&dumps)
	}
	if dumps != before+1 {
		t.Fatalf("%d Binlog Dump threads, %d before: the reader did not connect (%s)", dumps, before, stderr)
	}
	return stderr
}

// status reads a global status variable of db as an integer.
func status(t *testing.T, db *sql.DB, name string) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT CAST(VARIABLE_VALUE AS SIGNED) FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = ?", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMariaDBBinlogReaderNotAReplica: a binary-log reader that does not
// register as a replica (mariadb-binlog --stop-never, as change-data-capture
// tools read) runs a Binlog Dump thread but is no failover target: the
// store, counting Slaves_connected, claims beside it, where it once took
// it for an asynchronous replica and refused the primary.
func TestMariaDBBinlogReaderNotAReplica(t *testing.T) {
	t.Parallel()
	p := testservers.StartMariaDB(t, 1)
	db := open(t, "mysql", testservers.MySQLDSN(p.Addr()))
	stderr := binlogReader(t, p, db)
	_, err := claim(t, db)
	t.Logf("Slaves_connected %d, claim: %v; mariadb-binlog: %s", status(t, db, "SLAVES_CONNECTED"), err, stderr.String())
	if err != nil {
		t.Fatalf("a lease beside a binary-log reader: %v", err)
	}
}

// TestMariaDBBinlogReaderBesideSemiSync: a binary-log reader
// (mariadb-binlog --stop-never) beside a semi-synchronous replica neither
// blocks claims and renewals (the store once counted it among the
// replicas that must acknowledge: "2 must acknowledge", every claim
// refused) nor acknowledges for the replica: once the replica stops, the
// holder's renewals fail and its generator fences, although the reader
// still reads.
func TestMariaDBBinlogReaderBesideSemiSync(t *testing.T) {
	t.Parallel()
	p := testservers.StartMariaDB(t, 1)
	r := testservers.StartMariaDB(t, 2)
	r.ReplicateSemiSyncFrom(t, p, p.Addr())
	p.CaughtUp(t, r)
	db := open(t, "mysql", testservers.MySQLDSN(p.Addr()))
	stderr := binlogReader(t, p, db)
	l, err := claim(t, db)
	t.Logf("Slaves_connected %d, semi-sync clients %d, claim: %v; mariadb-binlog: %s",
		status(t, db, "SLAVES_CONNECTED"), status(t, db, "RPL_SEMI_SYNC_MASTER_CLIENTS"), err, stderr.String())
	if err != nil {
		t.Fatalf("a lease beside a semi-synchronous replica and a binary-log reader: %v", err)
	}
	g, err := node.NewSnowflake(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	// Renewals every TTL/3: three of them, none waiting for the reader.
	time.Sleep(2500 * time.Millisecond)
	if _, err := g.Next(); err != nil {
		t.Fatalf("after renewals beside a binary-log reader: %v (%+v)", err, l.Stats())
	}
	if st := l.Stats(); st.Failures != 0 {
		t.Fatalf("renewals failed beside a binary-log reader: %+v", st)
	}
	// The replica goes; the reader stays connected. The holder must
	// fence within TTL - Margin (1.5 s) and a renewal or two.
	r.Kill(t)
	deadline := time.Now().Add(6 * time.Second)
	for l.Fence() == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the holder still trusts its lease %v after the semi-synchronous replica left, with only the reader connected: %+v", 6*time.Second, l.Stats())
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("fenced after the replica left: %v", l.Fence())
}

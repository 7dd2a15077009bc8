// Package testservers starts throwaway database servers for tests that
// need more than the shared ones (a replica to promote, a primary to
// kill): each on a free loopback port, in a temporary directory, stopped
// and removed when the test ends. Every Start function first skips its
// test unless IDKIT_FAULTS is set ([testdb.RequireFaults]): these are the
// store-fault tests, which take minutes. A missing server binary skips
// the test with a message, or fails it when CI is set.
package testservers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idkit-go/idkit/internal/testdb"
)

// need returns path if it is an executable file, and otherwise skips t (or
// fails it in CI).
func need(t testing.TB, path string) string {
	t.Helper()
	if p, err := exec.LookPath(path); err == nil {
		return p
	}
	msg := fmt.Sprintf("%s not found: this test starts its own servers", path)
	if testdb.InCI() {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// tempDir makes a directory that the server's user can use, removed when
// t ends.
func tempDir(t testing.TB, prefix, owner string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if owner != "" && os.Geteuid() == 0 {
		u, err := user.Lookup(owner)
		if err != nil {
			t.Fatalf("user %s: %v", owner, err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// run runs a command (as user unless empty or not root), failing t with its
// output if it fails.
func run(t testing.TB, as string, name string, args ...string) string {
	t.Helper()
	out, err := command(as, name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func command(as, name string, args ...string) *exec.Cmd {
	if as != "" && os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", as, "--", name}, args...)...)
	}
	return exec.Command(name, args...)
}

// waitFor polls f until it succeeds or d passes, failing t then.
func waitFor(t testing.TB, what string, d time.Duration, f func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// PostgresBin is where the PostgreSQL 15 server programs are.
const PostgresBin = "/usr/lib/postgresql/15/bin"

// Postgres is a PostgreSQL server of its own data directory.
type Postgres struct {
	Port int
	dir  string // owned by postgres: data/, the socket, the log
}

// Addr returns the server's address, 127.0.0.1:port.
func (p *Postgres) Addr() string { return fmt.Sprintf("127.0.0.1:%d", p.Port) }

// DSN returns a pgx DSN for database postgres at addr (the server's or a
// proxy's).
func PostgresDSN(addr string) string {
	return "postgres://postgres@" + addr + "/postgres?sslmode=disable&connect_timeout=2"
}

func pgBin(t testing.TB, name string) string { return need(t, filepath.Join(PostgresBin, name)) }

// StartPostgres initializes and starts a primary that allows streaming
// replication, stopped and removed when t ends.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	testdb.RequireFaults(t)
	initdb := pgBin(t, "initdb")
	if os.Geteuid() == 0 {
		need(t, "runuser")
	}
	p := &Postgres{dir: tempDir(t, "idkit-pg-", "postgres")}
	run(t, "postgres", initdb, "-D", filepath.Join(p.dir, "data"), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
	p.start(t)
	return p
}

// Replica makes a streaming replica of p with pg_basebackup -R, connecting
// to p through via (p's address or a proxy's), and starts it.
func (p *Postgres) Replica(t testing.TB, via string) *Postgres {
	t.Helper()
	host, port, _ := net.SplitHostPort(via)
	r := &Postgres{dir: tempDir(t, "idkit-pg-", "postgres")}
	run(t, "postgres", pgBin(t, "pg_basebackup"), "-h", host, "-p", port, "-U", "postgres",
		"-D", filepath.Join(r.dir, "data"), "-R", "-X", "stream", "--no-sync", "-c", "fast")
	r.start(t)
	return r
}

// NamedReplica is Replica with the replica's cluster_name set to name,
// which its walreceiver reports as application_name in the
// pg_stat_replication of the server it streams from. p may itself be a
// standby: the replica then cascades from it (P -> p -> replica), and a
// checkpoint of the primary (CHECKPOINT on it) lets the base backup from
// p start.
func (p *Postgres) NamedReplica(t testing.TB, via, name string) *Postgres {
	t.Helper()
	host, port, _ := net.SplitHostPort(via)
	r := &Postgres{dir: tempDir(t, "idkit-pg-", "postgres")}
	data := filepath.Join(r.dir, "data")
	run(t, "postgres", pgBin(t, "pg_basebackup"), "-h", host, "-p", port, "-U", "postgres",
		"-D", data, "-R", "-X", "stream", "--no-sync", "-c", "fast")
	run(t, "postgres", "sh", "-c", "echo \"cluster_name = '"+name+"'\" >> "+filepath.Join(data, "postgresql.auto.conf"))
	r.start(t)
	return r
}

// Restart kills the server and starts it again on the same port, with its
// data directory (keep) or a new empty one, as when its host reboots.
func (p *Postgres) Restart(t testing.TB, keep bool) {
	t.Helper()
	p.Kill(t)
	if !keep {
		data := filepath.Join(p.dir, "data")
		run(t, "postgres", "rm", "-rf", data)
		run(t, "postgres", pgBin(t, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
	}
	p.start(t)
}

func (p *Postgres) start(t testing.TB) {
	t.Helper()
	if p.Port == 0 {
		p.Port = FreePort(t)
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c wal_level=replica -c max_wal_senders=8 -c hot_standby=on -c wal_receiver_status_interval=1s -c wal_retrieve_retry_interval=200ms", p.Port, p.dir)
	run(t, "postgres", pgBin(t, "pg_ctl"), "-D", filepath.Join(p.dir, "data"), "-l", filepath.Join(p.dir, "log"), "-w", "-t", "60", "-o", opts, "start")
	t.Cleanup(func() { p.Kill(t) })
}

// Kill stops the server at once (immediate mode: no shutdown checkpoint),
// as when its host dies. It does nothing if the server is down.
func (p *Postgres) Kill(t testing.TB) {
	_ = command("postgres", filepath.Join(PostgresBin, "pg_ctl"), "-D", filepath.Join(p.dir, "data"), "-m", "immediate", "-w", "stop").Run()
}

// Promote promotes a replica and waits until it accepts writes.
func (p *Postgres) Promote(t testing.TB) {
	t.Helper()
	run(t, "postgres", pgBin(t, "pg_ctl"), "-D", filepath.Join(p.dir, "data"), "-w", "-t", "60", "promote")
}

// Log returns the server log.
func (p *Postgres) Log() string {
	b, _ := os.ReadFile(filepath.Join(p.dir, "log"))
	return string(b)
}

// Psql runs one SQL command on the server and returns its unaligned output.
func (p *Postgres) Psql(t testing.TB, sql string) string {
	t.Helper()
	return strings.TrimSpace(run(t, "", pgBin(t, "psql"), "-h", "127.0.0.1", "-p", strconv.Itoa(p.Port), "-U", "postgres", "-d", "postgres", "-tAc", sql))
}

// CaughtUp waits until replica r has replayed everything p has written.
func (p *Postgres) CaughtUp(t testing.TB, r *Postgres) {
	t.Helper()
	lsn := p.Psql(t, "SELECT pg_current_wal_lsn()")
	waitFor(t, "replica catching up", 30*time.Second, func() error {
		if r.Psql(t, "SELECT pg_last_wal_replay_lsn() >= '"+lsn+"'::pg_lsn") == "t" {
			return nil
		}
		return fmt.Errorf("replica behind %s", lsn)
	})
}

// MariaDB is a MariaDB server of its own data directory, with a binary
// log, a server ID and root without a password.
type MariaDB struct {
	Port    int
	ID      int
	dir     string
	args    []string
	install func(t testing.TB)
	cmd     *exec.Cmd
}

// Addr returns the server's address, 127.0.0.1:port.
func (m *MariaDB) Addr() string { return fmt.Sprintf("127.0.0.1:%d", m.Port) }

// MySQLDSN returns a go-sql-driver DSN for database test at addr.
func MySQLDSN(addr string) string {
	return "root@tcp(" + addr + ")/test?parseTime=true&timeout=2s&readTimeout=5s&writeTimeout=5s"
}

// StartMariaDB initializes and starts a server with the given server ID (a
// replication topology needs one per server), with a database test;
// args are added to mariadbd's command line.
func StartMariaDB(t testing.TB, id int, args ...string) *MariaDB {
	t.Helper()
	testdb.RequireFaults(t)
	mariadbd := need(t, "/usr/sbin/mariadbd")
	install := need(t, "mariadb-install-db")
	need(t, "mariadb")
	m := &MariaDB{ID: id, dir: tempDir(t, "idkit-mariadb-", "")}
	m.install = func(t testing.TB) {
		run(t, "", install, "--no-defaults", "--datadir="+filepath.Join(m.dir, "data"), "--user=root", "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve", "--tmpdir="+m.dir)
	}
	m.install(t)
	m.Port = FreePort(t)
	m.args = []string{mariadbd, "--no-defaults", "--datadir=" + filepath.Join(m.dir, "data"), "--user=root",
		"--port=" + strconv.Itoa(m.Port), "--bind-address=127.0.0.1", "--socket=" + filepath.Join(m.dir, "sock"),
		"--pid-file=" + filepath.Join(m.dir, "pid"), "--server-id=" + strconv.Itoa(id), "--log-bin=" + filepath.Join(m.dir, "bin"),
		"--skip-name-resolve", "--tmpdir=" + m.dir, "--innodb-buffer-pool-size=32M", "--innodb-log-file-size=16M", "--log-error=" + filepath.Join(m.dir, "log")}
	m.args = append(m.args, args...)
	m.start(t)
	t.Cleanup(func() { m.Kill(t) })
	return m
}

func (m *MariaDB) start(t testing.TB) {
	t.Helper()
	m.cmd = exec.Command(m.args[0], m.args[1:]...)
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "mariadbd starting", 60*time.Second, func() error {
		_, err := m.exec("CREATE DATABASE IF NOT EXISTS test")
		return err
	})
}

// Restart kills the server and starts it again on the same port, with its
// data (keep) or a new empty data directory and binary log, as when its
// host reboots. A replica restarts as a primary of its own.
func (m *MariaDB) Restart(t testing.TB, keep bool) {
	t.Helper()
	m.Kill(t)
	if !keep {
		for _, f := range []string{"data", "bin.index"} {
			if err := os.RemoveAll(filepath.Join(m.dir, f)); err != nil {
				t.Fatal(err)
			}
		}
		old, _ := filepath.Glob(filepath.Join(m.dir, "bin.0*"))
		for _, f := range old {
			_ = os.Remove(f)
		}
		m.install(t)
	}
	m.start(t)
}

func (m *MariaDB) exec(sql string) (string, error) {
	var out bytes.Buffer
	c := exec.Command("mariadb", "--no-defaults", "-h", "127.0.0.1", "-P", strconv.Itoa(m.Port), "-u", "root", "-N", "-B", "-e", sql)
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	if err != nil {
		return "", fmt.Errorf("%v: %s", err, out.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// SQL runs SQL on the server and returns its tab-separated output.
func (m *MariaDB) SQL(t testing.TB, sql string) string {
	t.Helper()
	out, err := m.exec(sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// ReplicateFrom makes m an asynchronous replica of the server at via (a
// primary's address or a proxy's), from the start of its binary log.
func (m *MariaDB) ReplicateFrom(t testing.TB, via string) {
	t.Helper()
	host, port, _ := net.SplitHostPort(via)
	m.SQL(t, fmt.Sprintf("SET GLOBAL gtid_slave_pos = ''; CHANGE MASTER TO MASTER_HOST='%s', MASTER_PORT=%s, MASTER_USER='root', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1; START SLAVE", host, port))
}

// ReplicateSemiSyncFrom makes m a semi-synchronous replica of primary
// through via (primary's address or a proxy's), as the SQL lease store
// demands of a primary with replicas: AFTER_SYNC, the primary falling
// back to asynchronous replication after a second without an
// acknowledgement. It returns once the primary counts m among its
// semi-synchronous clients.
func (m *MariaDB) ReplicateSemiSyncFrom(t testing.TB, primary *MariaDB, via string) {
	t.Helper()
	const clients = "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'RPL_SEMI_SYNC_MASTER_CLIENTS'"
	primary.SQL(t, "SET GLOBAL rpl_semi_sync_master_enabled = ON; SET GLOBAL rpl_semi_sync_master_wait_point = AFTER_SYNC; SET GLOBAL rpl_semi_sync_master_timeout = 1000")
	before, _ := strconv.Atoi(primary.SQL(t, clients))
	m.SQL(t, "SET GLOBAL rpl_semi_sync_slave_enabled = ON")
	m.ReplicateFrom(t, via)
	waitFor(t, "the replica connecting semi-synchronously", 30*time.Second, func() error {
		if n, err := primary.exec(clients); err != nil || n != strconv.Itoa(before+1) {
			return fmt.Errorf("%s semi-synchronous clients, want %d (%v)", n, before+1, err)
		}
		return nil
	})
}

// CaughtUp waits until replica r has applied everything m had written when
// it was called (writes that come later may move the primary on meanwhile).
func (m *MariaDB) CaughtUp(t testing.TB, r *MariaDB) {
	t.Helper()
	pos := m.SQL(t, "SELECT @@gtid_binlog_pos")
	waitFor(t, "replica catching up", 30*time.Second, func() error {
		if got, err := r.exec("SELECT @@gtid_slave_pos"); err != nil || !gtidReached(got, pos) {
			return fmt.Errorf("replica at %q, primary at %q (%v)", got, pos, err)
		}
		return nil
	})
}

// gtidReached reports whether the GTID position got (domain-server-seq,
// comma-separated per domain) has reached want in every domain of want.
func gtidReached(got, want string) bool {
	seqs := map[string]uint64{}
	for _, g := range strings.Split(got, ",") {
		if d, seq, ok := gtidParts(g); ok {
			seqs[d] = seq
		}
	}
	for _, w := range strings.Split(want, ",") {
		d, seq, ok := gtidParts(w)
		if !ok {
			continue
		}
		if seqs[d] < seq {
			return false
		}
	}
	return true
}

// gtidParts splits one GTID into its domain and sequence number.
func gtidParts(g string) (domain string, seq uint64, ok bool) {
	parts := strings.Split(strings.TrimSpace(g), "-")
	if len(parts) != 3 {
		return "", 0, false
	}
	seq, err := strconv.ParseUint(parts[2], 10, 64)
	return parts[0], seq, err == nil
}

// Promote makes a replica a primary: it stops replicating and forgets its
// primary.
func (m *MariaDB) Promote(t testing.TB) {
	t.Helper()
	m.SQL(t, "STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = 0")
}

// Kill kills the server, as when its host dies.
func (m *MariaDB) Kill(t testing.TB) {
	if m.cmd != nil && m.cmd.Process != nil {
		_ = m.cmd.Process.Kill()
		_ = m.cmd.Wait()
		m.cmd = nil
	}
}

// Redis is a redis-server without persistence.
type Redis struct {
	Port int
	dir  string
	args []string // the program and its arguments
	cmd  *exec.Cmd
}

// Addr returns the server's address, 127.0.0.1:port.
func (r *Redis) Addr() string { return fmt.Sprintf("127.0.0.1:%d", r.Port) }

// StartRedis starts a redis-server without persistence, with extra
// arguments (such as --replicaof host port), and waits until it answers.
func StartRedis(t testing.TB, args ...string) *Redis {
	t.Helper()
	testdb.RequireFaults(t)
	bin := need(t, "redis-server")
	need(t, "redis-cli")
	r := &Redis{dir: tempDir(t, "idkit-redis-", "")}
	t.Cleanup(func() { r.Kill(t) })
	// A free port can be taken by another test's server before this one
	// binds it (and a cluster node also binds port + 10000): a server that
	// exits at once is started again on another port.
	for attempt := 1; ; attempt++ {
		r.Port = FreePort(t)
		r.args = append([]string{bin, "--port", strconv.Itoa(r.Port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--dir", r.dir, "--logfile", filepath.Join(r.dir, "log"), "--repl-timeout", "5"}, args...)
		err := r.tryStart()
		if err == nil {
			return r
		}
		if !errors.Is(err, errExited) || attempt == 3 {
			log, _ := os.ReadFile(filepath.Join(r.dir, "log"))
			t.Fatalf("redis-server starting: %v; log: %s", err, lastLines(log, 5))
		}
		r.Kill(t)
	}
}

// errExited is tryStart's error for a server process that exited.
var errExited = errors.New("redis-server exited")

func (r *Redis) start(t testing.TB) {
	t.Helper()
	if err := r.tryStart(); err != nil {
		t.Fatalf("redis-server starting: %v", err)
	}
}

// tryStart starts the server and waits up to 30 s until it answers, or
// returns an error wrapping errExited as soon as its process has exited.
func (r *Redis) tryStart() error {
	r.cmd = exec.Command(r.args[0], r.args[1:]...)
	if err := r.cmd.Start(); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := r.cli("PING")
		if err == nil {
			return nil
		}
		if exited(r.cmd.Process.Pid) {
			return fmt.Errorf("%w: %v", errExited, err)
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// exited reports whether process pid, a child not yet waited for, has
// exited (it is a zombie, or gone).
func exited(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command name, which is in parentheses.
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z'
}

// lastLines returns the last n lines of b.
func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Restart kills the server and starts it again on the same port, without
// its data (it has no persistence), as when its host reboots.
func (r *Redis) Restart(t testing.TB) {
	t.Helper()
	r.Kill(t)
	r.start(t)
}

func (r *Redis) cli(args ...string) (string, error) {
	out, err := exec.Command("redis-cli", append([]string{"-h", "127.0.0.1", "-p", strconv.Itoa(r.Port)}, args...)...).CombinedOutput()
	s := strings.TrimSpace(string(out))
	if err == nil && strings.HasPrefix(s, "ERR") || strings.HasPrefix(s, "Could not connect") {
		err = fmt.Errorf("%s", s)
	}
	return s, err
}

// Do runs one command with redis-cli and returns its output.
func (r *Redis) Do(t testing.TB, args ...string) string {
	t.Helper()
	out, err := r.cli(args...)
	if err != nil {
		t.Fatalf("redis-cli %v: %v", args, err)
	}
	return out
}

// Kill kills the server, as when its host dies.
func (r *Redis) Kill(t testing.TB) {
	if r.cmd != nil && r.cmd.Process != nil {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		r.cmd = nil
	}
}

// Info returns the value of field in INFO section.
func (r *Redis) Info(t testing.TB, section, field string) string {
	t.Helper()
	for _, line := range strings.Split(r.Do(t, "INFO", section), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			return v
		}
	}
	return ""
}

// WaitSynced waits until the replica r has every write its master sent
// (master_link_status up and the offsets equal) and the master lists it
// online, which can come later: until then a request on the master counts
// no replica, and WAIT does not wait for it.
func (m *Redis) WaitSynced(t testing.TB, r *Redis) {
	t.Helper()
	online := fmt.Sprintf("port=%d,state=online", r.Port)
	waitFor(t, "replica syncing", 30*time.Second, func() error {
		if r.Info(t, "replication", "master_link_status") != "up" {
			return fmt.Errorf("link down")
		}
		mo, ro := m.Info(t, "replication", "master_repl_offset"), r.Info(t, "replication", "slave_repl_offset")
		if mo != ro {
			return fmt.Errorf("master at %s, replica at %s", mo, ro)
		}
		if !strings.Contains(m.Do(t, "INFO", "replication"), online) {
			return fmt.Errorf("the master does not list the replica online yet")
		}
		return nil
	})
}

// Cluster is a Redis Cluster of three masters with a replica each.
type Cluster struct {
	Nodes []*Redis
}

// StartCluster starts six cluster-enabled servers and joins them with
// redis-cli --cluster create (three masters, one replica each).
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	testdb.RequireFaults(t)
	c := &Cluster{}
	addrs := []string{}
	for i := 0; i < 6; i++ {
		dir := tempDir(t, "idkit-redis-cluster-", "")
		r := StartRedis(t, "--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes.conf"),
			"--cluster-node-timeout", "1000", "--cluster-require-full-coverage", "no")
		c.Nodes = append(c.Nodes, r)
		addrs = append(addrs, r.Addr())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "redis-cli", append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", "1", "--cluster-yes")...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, r := range c.Nodes {
		waitFor(t, "cluster ok", 30*time.Second, func() error {
			if s := r.Info(t, "cluster", "cluster_enabled"); s != "1" {
				return fmt.Errorf("cluster_enabled %s", s)
			}
			if s := r.Do(t, "CLUSTER", "INFO"); !strings.Contains(s, "cluster_state:ok") {
				return fmt.Errorf("cluster not ok")
			}
			if n := strings.Count(r.Do(t, "CLUSTER", "NODES"), "slave"); n != 3 {
				return fmt.Errorf("%d replicas known", n)
			}
			return nil
		})
	}
	return c
}

// Pause stops the server process (SIGSTOP), as when its host hangs.
func (r *Redis) Pause(t testing.TB) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
}

// Resume continues a paused server (SIGCONT).
func (r *Redis) Resume(t testing.TB) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}

// SlotOwner returns the master that serves key's slot and its replica.
func (c *Cluster) SlotOwner(t testing.TB, key string) (master, replica *Redis) {
	t.Helper()
	slot, err := strconv.Atoi(c.Nodes[0].Do(t, "CLUSTER", "KEYSLOT", key))
	if err != nil {
		t.Fatal(err)
	}
	byAddr := map[string]*Redis{}
	for _, r := range c.Nodes {
		byAddr[r.Addr()] = r
	}
	var masterID string
	lines := strings.Split(c.Nodes[0].Do(t, "CLUSTER", "NODES"), "\n")
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) < 8 || !strings.Contains(f[2], "master") {
			continue
		}
		for _, rng := range f[8:] {
			lo, hi, _ := strings.Cut(rng, "-")
			if hi == "" {
				hi = lo
			}
			l, err1 := strconv.Atoi(lo)
			h, err2 := strconv.Atoi(hi)
			if err1 == nil && err2 == nil && l <= slot && slot <= h {
				masterID, master = f[0], byAddr[strings.Split(f[1], "@")[0]]
			}
		}
	}
	for _, line := range lines {
		if f := strings.Fields(line); len(f) >= 4 && f[3] == masterID {
			replica = byAddr[strings.Split(f[1], "@")[0]]
		}
	}
	if master == nil || replica == nil {
		t.Fatalf("no master and replica for slot %d in\n%s", slot, strings.Join(lines, "\n"))
	}
	return master, replica
}

package node_test

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testservers"
)

// syncBuffer is a bytes.Buffer safe for the lease goroutines' logging.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestAsyncReplicaWarning: a lease store with AllowSplitBrain on a primary
// with an asynchronous replica logs one WARN naming the risk and the
// setting, however many leases the process takes.
func TestAsyncReplicaWarning(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	for _, c := range []struct {
		name  string
		store func(t *testing.T) node.Store
		want  string
	}{
		{"postgres", func(t *testing.T) node.Store {
			primary := testservers.StartPostgres(t)
			replica := primary.Replica(t, primary.Addr())
			primary.CaughtUp(t, replica)
			return failoverStoreWith(t, "pgx", testservers.PostgresDSN(primary.Addr()), sqllease.StoreOptions{AllowSplitBrain: true})
		}, "synchronous_standby_names"},
		{"mariadb", func(t *testing.T) node.Store {
			primary := testservers.StartMariaDB(t, 1)
			replica := testservers.StartMariaDB(t, 2)
			replica.ReplicateFrom(t, primary.Addr())
			primary.CaughtUp(t, replica)
			return failoverStoreWith(t, "mysql", testservers.MySQLDSN(primary.Addr()), sqllease.StoreOptions{AllowSplitBrain: true})
		}, "AFTER_SYNC"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.store(t)
			var buf syncBuffer
			log := slog.New(slog.NewTextHandler(&buf, nil))
			for range 3 {
				l, err := node.NewLease(context.Background(), s, node.LeaseOptions{Logger: log})
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close(context.Background())
			}
			if n := strings.Count(buf.String(), "asynchronous replica"); n != 1 || !strings.Contains(buf.String(), c.want) {
				t.Errorf("%d warnings about asynchronous replicas naming %s, want 1:\n%s", n, c.want, buf.String())
			}
		})
	}
}

// TestBlindPostgresWarns: a role that may not call pg_control_system()
// still claims, and the store logs one WARN that it cannot tell a
// failover.
func TestBlindPostgresWarns(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	p := testservers.StartPostgres(t)
	p.Psql(t, "CREATE ROLE app LOGIN; REVOKE EXECUTE ON FUNCTION pg_control_system() FROM PUBLIC; GRANT ALL ON SCHEMA public TO app")
	s := failoverStore(t, "pgx", strings.Replace(testservers.PostgresDSN(p.Addr()), "postgres@", "app@", 1))
	var buf syncBuffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	for range 3 {
		l, err := node.NewLease(context.Background(), s, node.LeaseOptions{Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close(context.Background())
	}
	if n := strings.Count(buf.String(), "cannot read the server's identity"); n != 1 || !strings.Contains(buf.String(), "pg_control_system") {
		t.Errorf("%d warnings, want 1 naming pg_control_system:\n%s", n, buf.String())
	}
}

// TestProbeOutageNotBlind: a store opened while the server cannot be
// reached, or on a standby in recovery, is an error, not a store that
// cannot read the server's identity (whose claims would record an empty
// identity and fence the other processes' leases); opened once the server
// answers, it reads the identity and warns of nothing.
func TestProbeOutageNotBlind(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	primary := testservers.StartPostgres(t)
	replica := primary.Replica(t, primary.Addr())
	primary.CaughtUp(t, replica)
	open := func(addr string) *sql.DB {
		db, err := sql.Open("pgx", testservers.PostgresDSN(addr))
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		return db
	}
	ctx := context.Background()
	first, err := node.NewLease(ctx, sqllease.NewStore(open(primary.Addr()), sqllease.StoreOptions{}), node.LeaseOptions{}) // the table, replicated
	require.NoError(t, err)
	require.NoError(t, first.Close(ctx))
	primary.CaughtUp(t, replica)
	_, err = node.NewLease(ctx, sqllease.NewStore(open(replica.Addr()), sqllease.StoreOptions{}), node.LeaseOptions{})
	require.ErrorContains(t, err, "standby")

	path := tcpproxy.Start(t, primary.Addr())
	path.Cut()
	db := open(path.Addr())
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	_, err = node.NewLease(cctx, sqllease.NewStore(db, sqllease.StoreOptions{}), node.LeaseOptions{})
	cancel()
	require.Error(t, err)
	path.Restore()
	s := sqllease.NewStore(db, sqllease.StoreOptions{})
	var buf syncBuffer
	l, err := node.NewLease(ctx, s, node.LeaseOptions{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	require.NoError(t, err)
	defer l.Close(ctx)
	require.NotContains(t, buf.String(), "cannot read the server's identity")
}

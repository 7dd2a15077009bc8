package node_test

import (
	"database/sql"
	"io"
	"log"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/internal/failovertest"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testservers"
)

// failoverStore opens a lease store on the database at dsn, closed when t ends.
func failoverStore(t *testing.T, driver, dsn string) node.Store {
	t.Helper()
	return failoverStoreWith(t, driver, dsn, sqllease.StoreOptions{})
}

// failoverStoreWith is failoverStore with options.
func failoverStoreWith(t *testing.T, driver, dsn string, o sqllease.StoreOptions) node.Store {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := sqllease.NewStore(db, o)
	return s
}

// TestFailoverPostgres: a PostgreSQL primary with an asynchronous streaming
// replica (pg_basebackup -R) that is detached before holder A's claim and
// then promoted (pg_ctl promote). A's claim on a primary its recorded
// replica left is refused by default (docs/leases.md, "Split brain"), so
// the stores accept it with AllowSplitBrain: the identity check and the
// wait-out must still cover the failover (the conformance suite runs the
// default options, where A is refused).
func TestFailoverPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	failovertest.Check(t, "PostgreSQL", func(t *testing.T) failovertest.Setup {
		primary := testservers.StartPostgres(t)
		link := tcpproxy.Start(t, primary.Addr())
		replica := primary.Replica(t, link.Addr())
		return failovertest.Setup{
			Store: func(t *testing.T, addr string) node.Store {
				return failoverStoreWith(t, "pgx", testservers.PostgresDSN(addr), sqllease.StoreOptions{AllowSplitBrain: true})
			},
			Primary:  primary.Addr(),
			Replica:  replica.Addr(),
			CaughtUp: func(t *testing.T) { primary.CaughtUp(t, replica) },
			Detach:   func(t *testing.T) { link.Cut() },
			Promote:  func(t *testing.T) { replica.Promote(t) },
			Kill:     func(t *testing.T) { primary.Kill(t) },
		}
	})
}

// TestFailoverMariaDB: a MariaDB primary with an asynchronous replica (a
// second mariadbd) that stops replicating before holder A's claim and is
// then made the primary. The store accepts the asynchronous replica only
// with AllowSplitBrain (TestSplitBrainRefusedMariaDB).
func TestFailoverMariaDB(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	// The driver logs every connection the failover breaks.
	_ = mysql.SetLogger(log.New(io.Discard, "", 0))
	failovertest.Check(t, "MariaDB", func(t *testing.T) failovertest.Setup {
		primary := testservers.StartMariaDB(t, 1)
		replica := testservers.StartMariaDB(t, 2)
		link := tcpproxy.Start(t, primary.Addr())
		replica.ReplicateFrom(t, link.Addr())
		return failovertest.Setup{
			Store: func(t *testing.T, addr string) node.Store {
				return failoverStoreWith(t, "mysql", testservers.MySQLDSN(addr), sqllease.StoreOptions{AllowSplitBrain: true})
			},
			Primary:  primary.Addr(),
			Replica:  replica.Addr(),
			CaughtUp: func(t *testing.T) { primary.CaughtUp(t, replica) },
			Detach:   func(t *testing.T) { link.Cut() },
			Promote:  func(t *testing.T) { replica.Promote(t) },
			Kill:     func(t *testing.T) { primary.Kill(t) },
		}
	})
}

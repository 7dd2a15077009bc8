package node_test

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/testservers"
)

// countQueries is a pgx tracer counting the statements a connection sends.
type countQueries struct{ n atomic.Int64 }

func (c *countQueries) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *countQueries) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// countCommands is a go-redis hook counting the round trips of a client:
// a command or a pipeline each.
type countCommands struct{ n atomic.Int64 }

func (c *countCommands) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *countCommands) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *countCommands) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

// TestClaimRoundTrips counts what a claim sends to the server once the
// lease table exists and no failover happened, on servers of the test's
// own: PostgreSQL statements (pgx's tracer), MariaDB statements (the
// server's Questions counter) and Redis commands (a go-redis hook). The
// figures are those of the code before failover detection.
func TestClaimRoundTrips(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	ctx := context.Background()
	const claims = 20
	perClaim := func(t *testing.T, s node.Store, count func() int64) float64 {
		t.Helper()
		warm, err := node.NewLease(ctx, s, node.LeaseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		warm.Close(ctx)
		var leases []*node.Lease
		n0 := count()
		for range claims {
			l, err := node.NewLease(ctx, s, node.LeaseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			leases = append(leases, l)
		}
		n := count() - n0
		for _, l := range leases {
			l.Close(ctx)
		}
		return float64(n) / claims
	}
	t.Run("postgres", func(t *testing.T) {
		p := testservers.StartPostgres(t)
		cfg, err := pgx.ParseConfig(testservers.PostgresDSN(p.Addr()))
		if err != nil {
			t.Fatal(err)
		}
		var c countQueries
		cfg.Tracer = &c
		db := stdlib.OpenDB(*cfg)
		defer db.Close()
		s := sqllease.NewStore(db, sqllease.StoreOptions{})
		got := perClaim(t, s, c.n.Load)
		t.Logf("PostgreSQL: %.2f statements per claim", got)
		if got != 1 {
			t.Errorf("%.2f statements per claim, want 1", got)
		}
	})
	t.Run("postgres-replica", func(t *testing.T) {
		// With a replica, a claim and a renewal also wait for it to flush
		// them: one pg_stat_replication poll or more each.
		p := testservers.StartPostgres(t)
		r := p.Replica(t, p.Addr())
		p.CaughtUp(t, r)
		cfg, err := pgx.ParseConfig(testservers.PostgresDSN(p.Addr()))
		if err != nil {
			t.Fatal(err)
		}
		var c countQueries
		cfg.Tracer = &c
		db := stdlib.OpenDB(*cfg)
		defer db.Close()
		s := sqllease.NewStore(db, sqllease.StoreOptions{})
		got := perClaim(t, s, c.n.Load)
		l, err := node.NewLease(ctx, s, node.LeaseOptions{TTL: 600 * time.Millisecond, RenewEvery: 100 * time.Millisecond, Margin: 150 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		n0, r0 := c.n.Load(), l.Stats().Renewals
		time.Sleep(2 * time.Second)
		n, renewals := c.n.Load()-n0, l.Stats().Renewals-r0
		l.Close(ctx)
		t.Logf("PostgreSQL with a replica: %.2f statements per claim, %.2f per renewal (%d renewals)", got, float64(n)/float64(max(renewals, 1)), renewals)
		if got < 2 {
			t.Errorf("%.2f statements per claim: the claims did not wait for the replica", got)
		}
	})
	t.Run("mariadb", func(t *testing.T) {
		m := testservers.StartMariaDB(t, 1)
		db, err := sql.Open("mysql", testservers.MySQLDSN(m.Addr()))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		s := sqllease.NewStore(db, sqllease.StoreOptions{})
		// Questions counts this query too: one per reading.
		questions := func() int64 {
			n, _ := strconv.ParseInt(strings.Fields(m.SQL(t, "SHOW GLOBAL STATUS LIKE 'Questions'"))[1], 10, 64)
			return n
		}
		q0 := questions()
		self := questions() - q0
		got := perClaim(t, s, func() int64 { return questions() - self })
		t.Logf("MariaDB: %.2f statements per claim", got)
		// Five a claim (isolation level, begin, select, update, commit),
		// and as before two more in the 20 claims.
		if got > 5.1 {
			t.Errorf("%.2f statements per claim, want 5.10 at most", got)
		}
	})
	t.Run("mariadb-semisync", func(t *testing.T) {
		// With a semi-synchronous replica, a claim and a renewal also read
		// that semi-synchronous replication is still in force: one
		// statement more each.
		m := testservers.StartMariaDB(t, 1)
		r := testservers.StartMariaDB(t, 2)
		r.ReplicateSemiSyncFrom(t, m, m.Addr())
		db, err := sql.Open("mysql", testservers.MySQLDSN(m.Addr()))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		s := sqllease.NewStore(db, sqllease.StoreOptions{})
		questions := func() int64 {
			n, _ := strconv.ParseInt(strings.Fields(m.SQL(t, "SHOW GLOBAL STATUS LIKE 'Questions'"))[1], 10, 64)
			return n
		}
		q0 := questions()
		self := questions() - q0
		got := perClaim(t, s, func() int64 { return questions() - self })
		t.Logf("MariaDB with a semi-synchronous replica: %.2f statements per claim", got)
		if got < 5.9 || got > 6.15 {
			t.Errorf("%.2f statements per claim, want 6 (5 and the check; two more in the 20 claims, as above)", got)
		}
	})
	t.Run("redis", func(t *testing.T) {
		r := testservers.StartRedis(t)
		cl := redis.NewClient(&redis.Options{Addr: r.Addr()})
		defer cl.Close()
		var c countCommands
		cl.AddHook(&c)
		s := redislease.NewStore(cl, redislease.StoreOptions{})
		got := perClaim(t, s, c.n.Load)
		t.Logf("Redis: %.2f commands per claim", got)
		if got != 1 {
			t.Errorf("%.2f commands per claim, want 1", got)
		}
	})
}

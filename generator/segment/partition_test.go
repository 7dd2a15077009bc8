package segment_test

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator/segment"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testdb"
)

// viaProxy returns the server's database directly and through a proxy.
type viaProxy func(t *testing.T) (direct, via *sql.DB, p *tcpproxy.Proxy)

func postgresViaProxy(t *testing.T) (*sql.DB, *sql.DB, *tcpproxy.Proxy) {
	db := testdb.Postgres(t)
	cfg, err := pgx.ParseConfig(testdb.PostgresDSN())
	require.NoError(t, err)
	p := tcpproxy.Start(t, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))))
	cfg.Host, cfg.Port, cfg.ConnectTimeout = "127.0.0.1", uint16(p.Port()), time.Second
	via := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { via.Close() })
	return db, via, p
}

func mariadbViaProxy(t *testing.T) (*sql.DB, *sql.DB, *tcpproxy.Proxy) {
	db := testdb.MySQL(t)
	cfg, err := mysql.ParseDSN(testdb.MySQLDSN())
	require.NoError(t, err)
	p := tcpproxy.Start(t, cfg.Addr)
	cfg.Addr, cfg.Timeout = p.Addr(), time.Second
	via, err := sql.Open("mysql", cfg.FormatDSN())
	require.NoError(t, err)
	t.Cleanup(func() { via.Close() })
	return db, via, p
}

// TestPartition cuts one allocator's link to the database (a blackhole)
// mid-run while a second allocator of the same tag reaches it directly.
// The cut allocator serves what it has buffered, then fails with
// ErrUnavailable within its Timeout instead of hanging; after the link is
// back it fetches again, above every ID issued before, and no ID repeats.
func TestPartition(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		open viaProxy
	}{{"postgres", postgresViaProxy}, {"mariadb", mariadbViaProxy}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			direct, via, p := c.open(t)
			ctx := context.Background()
			o := segment.Options{Table: table(t, direct), Step: 20, MaxStep: 20, Timeout: 300 * time.Millisecond, RetryAfter: 50 * time.Millisecond}
			a, err := segment.New(ctx, via, "cut", o)
			require.NoError(t, err)
			defer a.Close()
			b, err := segment.New(ctx, direct, "cut", o)
			require.NoError(t, err)
			defer b.Close()

			var before []int64
			take := func(al *segment.Allocator, n int) {
				for range n {
					id, err := al.Next(ctx)
					require.NoError(t, err)
					before = append(before, id)
				}
			}
			take(a, 30)
			take(b, 30)
			time.Sleep(50 * time.Millisecond) // let a's prefetch land
			p.Blackhole()
			buffered := a.Stats().Buffered

			// a serves its buffers, then fails promptly, again and again.
			served, failures := 0, 0
			for failures < 3 {
				start := time.Now()
				id, err := a.Next(ctx)
				took := time.Since(start)
				require.Less(t, took, o.Timeout+time.Second, "Next hung on the cut link")
				if err != nil {
					require.ErrorIs(t, err, segment.ErrUnavailable)
					failures++
					continue
				}
				require.Zero(t, failures, "an id after a failure with nothing fetched")
				served++
				before = append(before, id)
				take(b, 1) // the other allocator goes on meanwhile
			}
			require.Equal(t, buffered, int64(served), "a served exactly what it had buffered")

			// Reconnect: a fetches again, above every earlier ID.
			p.Restore()
			maxBefore := before[0]
			for _, id := range before {
				maxBefore = max(maxBefore, id)
			}
			var after []int64
			deadline := time.Now().Add(3 * time.Second)
			for len(after) < 50 {
				id, err := a.Next(ctx)
				if errors.Is(err, segment.ErrUnavailable) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond) // a stale pooled connection is dropped
					continue
				}
				require.NoError(t, err)
				require.Greater(t, id, maxBefore)
				after = append(after, id)
			}
			for range 50 {
				id, err := b.Next(ctx)
				require.NoError(t, err)
				after = append(after, id)
			}
			requireUnique(t, append(before, after...))
		})
	}
}

package node_test

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

// proxied is a lease store reached both through a proxy (the holder whose
// link is cut) and directly (the successor).
type proxied struct {
	name   string
	proxy  *tcpproxy.Proxy
	viaFn  func(ctx context.Context, o leaseConf) (*node.Lease, error)
	direct func(ctx context.Context, o leaseConf) (*node.Lease, error)
}

func proxiedPostgres(t *testing.T) proxied {
	db := testdb.Postgres(t) // skips, or fails under CI, without a server
	cfg, err := pgx.ParseConfig(testdb.PostgresDSN())
	require.NoError(t, err)
	p := tcpproxy.Start(t, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))))
	cfg.Host, cfg.Port = "127.0.0.1", uint16(p.Port())
	cfg.ConnectTimeout = time.Second
	via := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { via.Close() })
	return sqlProxied(t, "postgres", p, db, via)
}

func proxiedMariaDB(t *testing.T) proxied {
	db := testdb.MySQL(t)
	cfg, err := mysql.ParseDSN(testdb.MySQLDSN())
	require.NoError(t, err)
	p := tcpproxy.Start(t, cfg.Addr)
	cfg.Addr, cfg.Timeout = p.Addr(), time.Second
	via, err := sql.Open("mysql", cfg.FormatDSN())
	require.NoError(t, err)
	t.Cleanup(func() { via.Close() })
	return sqlProxied(t, "mariadb", p, db, via)
}

func sqlProxied(t *testing.T, name string, p *tcpproxy.Proxy, db, via *sql.DB) proxied {
	table := testdb.Name("lease")
	t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + table) })
	return proxied{
		name:  name,
		proxy: p,
		viaFn: func(ctx context.Context, o leaseConf) (*node.Lease, error) {
			return sqlLease(ctx, via, table, o)
		},
		direct: func(ctx context.Context, o leaseConf) (*node.Lease, error) {
			return sqlLease(ctx, db, table, o)
		},
	}
}

func proxiedRedis(t *testing.T) proxied {
	addr := testdb.RequireRedis(t)
	p := tcpproxy.Start(t, addr)
	key := testdb.Name("lease")
	direct := redis.NewClient(&redis.Options{Addr: addr})
	via := redis.NewClient(&redis.Options{Addr: p.Addr(), MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { delRedis(direct, key); direct.Close(); via.Close() })
	return proxied{
		name:  "redis",
		proxy: p,
		viaFn: func(ctx context.Context, o leaseConf) (*node.Lease, error) {
			return redisLease(ctx, via, key, o)
		},
		direct: func(ctx context.Context, o leaseConf) (*node.Lease, error) {
			return redisLease(ctx, direct, key, o)
		},
	}
}

func proxiedStores() []struct {
	name string
	make func(t *testing.T) proxied
} {
	return []struct {
		name string
		make func(t *testing.T) proxied
	}{{"postgres", proxiedPostgres}, {"mariadb", proxiedMariaDB}, {"redis", proxiedRedis}}
}

// partitionOptions: one node ID (so the successor must wait for it), a
// short TTL.
func partitionOptions(t *testing.T) leaseConf {
	return leaseConf{Layout: layout(t, 0), LeaseOptions: node.LeaseOptions{TTL: 600 * time.Millisecond, RenewEvery: 100 * time.Millisecond, Margin: 150 * time.Millisecond}}
}

// TestLeasePartition cuts the holder's link to the store mid-run (a
// blackhole: nothing closes, nothing arrives). The holder must stop issuing
// before TTL - Margin after the cut; the successor, reaching the store
// directly, gets the node ID once the lease expires and issues only IDs
// above every ID of the old holder; once the link is back, the old holder
// finds its lease lost and issues nothing more.
func TestLeasePartition(t *testing.T) {
	t.Parallel()
	for _, s := range proxiedStores() {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			ps := s.make(t)
			ctx := context.Background()
			o := partitionOptions(t)
			a, err := ps.viaFn(ctx, o)
			require.NoError(t, err)
			defer a.Close(ctx)
			ga, err := node.NewSnowflake(ctx, a)
			require.NoError(t, err)

			// The old holder issues flat out, recording when each ID returned.
			var mu sync.Mutex
			var aIDs []types.Snowflake
			var lastOK, lastStart time.Time
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					start := time.Now()
					id, err := ga.Next()
					now := time.Now()
					if err == nil {
						mu.Lock()
						aIDs, lastOK, lastStart = append(aIDs, id), now, start
						mu.Unlock()
					} else if !errors.Is(err, generator.ErrFenced) {
						t.Errorf("unexpected error %v", err)
					}
					time.Sleep(50 * time.Microsecond)
				}
			})
			time.Sleep(250 * time.Millisecond) // a few renewals through the proxy
			// On a busy machine the lease may not be trusted yet (a claim
			// or renewal that outlasted TTL - Margin): wait until it is.
			ready := time.Now().Add(healSlack)
			for {
				mu.Lock()
				n := len(aIDs)
				mu.Unlock()
				if n > 0 && a.Fence() == nil {
					break
				}
				require.True(t, time.Now().Before(ready), "the holder never issued: %v", a.Fence())
				time.Sleep(5 * time.Millisecond)
			}
			cut := time.Now()
			ps.proxy.Blackhole()

			// The successor gets the node as soon as the store lets it.
			var b *node.Lease
			for b == nil {
				// The store frees the node TTL after the last renewal.
				require.Less(t, time.Since(cut), o.TTL+healSlack, "the successor never got the node")
				l, err := ps.direct(ctx, o)
				if errors.Is(err, node.ErrExhausted) {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				require.NoError(t, err)
				b = l
			}
			defer b.Close(ctx)
			took := time.Now()
			mu.Lock()
			stoppedAfter, last := lastStart.Sub(cut), len(aIDs)
			mu.Unlock()
			require.Positive(t, last)
			// Every renewal began before the cut, so no Next that began at
			// or after cut + TTL - Margin may succeed.
			require.Less(t, stoppedAfter, o.TTL-o.Margin, "the old holder issued an ID asked for %v after the cut", stoppedAfter)
			require.True(t, lastOK.Before(took), "the old holder issued after the successor took over")
			gb, err := node.NewSnowflake(ctx, b)
			require.NoError(t, err)

			// Reconnect: the old holder's next renewal finds another owner.
			ps.proxy.Restore()
			var bIDs []types.Snowflake
			// A renewal sent into the blackhole is abandoned after
			// RenewEvery; the next comes RenewEvery/4 later.
			deadline := time.Now().Add(o.RenewEvery + o.RenewEvery/4 + healSlack)
			// A machine too busy to renew may let b lapse, and then a may
			// heal onto the node: both are correct; safety is checked below.
			for {
				bIDs = append(bIDs, nextIDs(t, gb, 1, time.Millisecond)...)
				if errors.Is(a.Fence(), node.ErrLeaseLost) || a.Stats().Reclaims > 0 {
					break
				}
				require.True(t, time.Now().Before(deadline), "the old holder never learned it lost the lease: %v", a.Fence())
				time.Sleep(time.Millisecond)
			}
			time.Sleep(20 * time.Millisecond)
			close(stop)
			wg.Wait()
			healed := a.Stats().Reclaims > 0
			if !healed {
				_, err = ga.Next()
				require.ErrorIs(t, err, node.ErrLeaseLost)
				require.NoError(t, a.Close(ctx), "closing a lost lease releases nothing")
				require.NotErrorIs(t, b.Fence(), node.ErrLeaseLost, "the old holder's Close left the successor's lease alone")
			}
			bIDs = append(bIDs, nextIDs(t, gb, 100, healSlack)...)

			mu.Lock()
			defer mu.Unlock()
			if !healed {
				require.Equal(t, last, len(aIDs), "the old holder issued after the successor took over")
			}
			maxA := aIDs[last-1]
			seen := make(map[types.Snowflake]bool, len(aIDs)+len(bIDs))
			for _, id := range append(aIDs, bIDs...) {
				require.False(t, seen[id], "id %d repeated", id)
				seen[id] = true
			}
			for _, id := range bIDs {
				require.Greater(t, id, maxA, "successor id not above the old holder's before the takeover")
			}
		})
	}
}

// TestLeaseCloseUnreachable: Close returns within its bound, whatever the
// caller's context, with the store blackholed.
func TestLeaseCloseUnreachable(t *testing.T) {
	t.Parallel()
	for _, s := range proxiedStores() {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			ps := s.make(t)
			ctx := context.Background()
			o := leaseConf{Layout: layout(t, 2), LeaseOptions: node.LeaseOptions{TTL: 3 * time.Second}}
			l, err := ps.viaFn(ctx, o)
			require.NoError(t, err)
			g, err := node.NewSnowflake(ctx, l)
			require.NoError(t, err)
			_, err = g.Next()
			require.NoError(t, err)
			require.Equal(t, time.Second, l.CloseTimeout())
			ps.proxy.Blackhole()
			start := time.Now()
			done := make(chan error, 1)
			go func() { done <- l.Close(context.Background()) }()
			select {
			case err = <-done:
			case <-time.After(l.CloseTimeout() + 2*time.Second):
				t.Fatal("Close blocked with the store unreachable")
			}
			took := time.Since(start)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.Less(t, took, l.CloseTimeout()+time.Second, "within the bound, allowing for a loaded machine")
			_, err = g.Next()
			require.ErrorIs(t, err, node.ErrLeaseClosed)
			require.ErrorIs(t, l.Close(ctx), context.DeadlineExceeded, "later calls return the same result")
		})
	}
}

// TestLeaseRidesThroughStoreOutage: on each store, an outage of
// MaxOutage that starts just after a renewal (the link blackholed, or
// every connection refused as when the server is down) costs no refused
// ID: the lease is trusted for MaxOutage + RenewEvery after that renewal
// started, and the renewal after the outage lands within RenewEvery.
func TestLeaseRidesThroughStoreOutage(t *testing.T) {
	t.Parallel()
	for _, s := range proxiedStores() {
		for _, mode := range []string{"blackhole", "down"} {
			t.Run(s.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				ps := s.make(t)
				ctx := context.Background()
				// TTL 7 s; a renewal is abandoned after 1 s.
				o := leaseConf{Layout: layout(t, 2), LeaseOptions: node.LeaseOptions{
					MaxOutage: 4 * time.Second, RenewEvery: 2 * time.Second, Margin: time.Second}}
				l, err := ps.viaFn(ctx, o)
				require.NoError(t, err)
				defer l.Close(ctx)
				g, err := node.NewSnowflake(ctx, l)
				require.NoError(t, err)
				var fenced, issued atomic.Int64
				stop := make(chan struct{})
				done := make(chan struct{})
				go func() {
					defer close(done)
					for {
						select {
						case <-stop:
							return
						default:
						}
						if _, err := g.Next(); err != nil {
							fenced.Add(1) // ErrFenced: the generator has no other error here
							time.Sleep(time.Millisecond)
							continue
						}
						issued.Add(1)
					}
				}()
				r := l.Stats().Renewals
				for l.Stats().Renewals == r {
					time.Sleep(time.Millisecond)
				}
				if mode == "down" {
					ps.proxy.Cut()
				} else {
					ps.proxy.Blackhole()
				}
				mid := issued.Load()
				time.Sleep(o.MaxOutage)
				during := issued.Load() - mid
				ps.proxy.Restore()
				r = l.Stats().Renewals
				deadline := time.Now().Add(o.RenewEvery + healSlack)
				for l.Stats().Renewals == r {
					require.True(t, time.Now().Before(deadline), "no renewal within RenewEvery of the outage's end")
					time.Sleep(5 * time.Millisecond)
				}
				close(stop)
				<-done
				require.Zero(t, fenced.Load(), "no ID refused through the outage")
				require.Zero(t, l.Stats().Fences)
				require.Positive(t, l.Stats().Failures)
				require.Positive(t, during, "IDs issued during the outage")
				t.Logf("%d IDs, %d during the outage, 0 refused", issued.Load(), during)
			})
		}
	}
}

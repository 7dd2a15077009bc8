package node_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/dialect"
	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/internal/testclock"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

// store is one lease backend under test.
type store struct {
	name string
	// lease claims with the store's shared handle.
	lease func(ctx context.Context, o leaseConf) (*node.Lease, error)
	// steal makes another owner hold n; remove deletes n's record;
	// fake writes an expired record for n with the given mark.
	steal, remove func(t *testing.T, n int64)
	fake          func(t *testing.T, n int64, mark time.Time)
	// broken returns a lease whose connection the returned func closes.
	broken func(t *testing.T, o leaseConf) (*node.Lease, func())
}

func sqlStore(t *testing.T, name string, db *sql.DB, open func(t testing.TB) *sql.DB, d dialect.Dialect) store {
	table := testdb.Name("lease")
	t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + table) })
	p := func(i int) string {
		if d == dialect.Postgres {
			return fmt.Sprintf("$%d", i)
		}
		return "?"
	}
	past := map[dialect.Dialect]string{
		dialect.Postgres: "now() - interval '1 hour'",
		dialect.MySQL:    "UTC_TIMESTAMP(6) - INTERVAL 1 HOUR",
		dialect.SQLite:   "0",
	}[d]
	future := map[dialect.Dialect]string{
		dialect.Postgres: "now() + interval '1 hour'",
		dialect.MySQL:    "UTC_TIMESTAMP(6) + INTERVAL 1 HOUR",
		dialect.SQLite:   "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) + 3600000",
	}[d]
	exec := func(t *testing.T, q string, args ...any) {
		t.Helper()
		_, err := db.Exec(q, args...)
		require.NoError(t, err)
	}
	return store{
		name: name,
		lease: func(ctx context.Context, o leaseConf) (*node.Lease, error) {
			return sqlLease(ctx, db, table, o)
		},
		// The thief holds the node for an hour, however slow the test.
		steal: func(t *testing.T, n int64) {
			exec(t, "UPDATE "+table+" SET owner = 'thief', expires_at = "+future+" WHERE node = "+p(1), n)
		},
		remove: func(t *testing.T, n int64) { exec(t, "DELETE FROM "+table+" WHERE node = "+p(1), n) },
		fake: func(t *testing.T, n int64, mark time.Time) {
			// Make sure the table exists, then plant a dead holder's row
			// (the short lease keeps the stored horizon short).
			l, err := sqlLease(context.Background(), db, table, short(t, 1))
			require.NoError(t, err)
			require.NoError(t, l.Close(context.Background()))
			exec(t, "DELETE FROM "+table+" WHERE node >= 0") // the identity row stays
			exec(t, "INSERT INTO "+table+" (node, owner, expires_at, hwm_ns) VALUES ("+p(1)+", 'dead', "+past+", "+p(2)+")",
				n, mark.UnixNano())
		},
		broken: func(t *testing.T, o leaseConf) (*node.Lease, func()) {
			own := open(t)
			l, err := sqlLease(context.Background(), own, table, o)
			require.NoError(t, err)
			return l, func() { own.Close() }
		},
	}
}

func redisStore(t *testing.T) store {
	addr := testdb.RequireRedis(t)
	c := redis.NewClient(&redis.Options{Addr: addr})
	key := testdb.Name("lease")
	t.Cleanup(func() { delRedis(c, key); c.Close() })
	ctx := context.Background()
	return store{
		name: "redis",
		lease: func(ctx context.Context, o leaseConf) (*node.Lease, error) {
			return redisLease(ctx, c, key, o)
		},
		steal: func(t *testing.T, n int64) {
			// The thief holds the node for an hour, however slow the test.
			e := time.Now().Add(time.Hour).UnixMilli()
			require.NoError(t, c.HSet(ctx, key, fmt.Sprint("o:", n), "thief", fmt.Sprint("e:", n), e).Err())
			require.NoError(t, c.ZAdd(ctx, "{"+key+"}:held", redis.Z{Score: float64(e), Member: n}).Err())
			require.NoError(t, c.ZRem(ctx, "{"+key+"}:free", n).Err())
		},
		remove: func(t *testing.T, n int64) { require.NoError(t, c.Del(ctx, key).Err()) },
		fake: func(t *testing.T, n int64, mark time.Time) {
			// Make sure the hash exists with its identity (a hash without
			// one is a lost store), then plant a dead holder's record (the
			// short lease keeps the stored horizon short).
			l, err := redisLease(ctx, c, key, short(t, 1))
			require.NoError(t, err)
			require.NoError(t, l.Close(ctx))
			require.NoError(t, c.HSet(ctx, key, fmt.Sprint("o:", n), "dead", fmt.Sprint("e:", n), "1",
				fmt.Sprint("h:", n), fmt.Sprint(mark.UnixMicro())).Err())
		},
		broken: func(t *testing.T, o leaseConf) (*node.Lease, func()) {
			own := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
			l, err := redisLease(context.Background(), own, key, o)
			require.NoError(t, err)
			return l, func() { own.Close() }
		},
	}
}

// storeMaker makes one lease backend for a subtest, with a fresh table or
// key; a missing server skips (or under CI fails) that subtest only.
type storeMaker struct {
	name string
	make func(t *testing.T) store
}

// stores returns every lease backend.
func stores() []storeMaker {
	return []storeMaker{
		{"postgres", func(t *testing.T) store {
			return sqlStore(t, "postgres", testdb.Postgres(t), testdb.Postgres, dialect.Postgres)
		}},
		{"mariadb", func(t *testing.T) store {
			return sqlStore(t, "mariadb", testdb.MySQL(t), testdb.MySQL, dialect.MySQL)
		}},
		{"sqlite", sqlite},
		{"redis", redisStore},
	}
}

func sqlite(t *testing.T) store {
	dsn := testdb.SQLiteDSN(t)
	open := func(t testing.TB) *sql.DB {
		db, err := sql.Open(testdb.SQLiteDriver, dsn)
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		return db
	}
	return sqlStore(t, "sqlite", open(t), open, dialect.SQLite)
}

// layout is a Twitter-like layout with the given node bits.
func layout(t testing.TB, nodeBits uint8) generator.Layout {
	spec := generator.Twitter().Spec()
	spec.NodeBits, spec.Name = nodeBits, fmt.Sprintf("test%d", nodeBits)
	l, err := generator.NewLayout(spec)
	require.NoError(t, err)
	return l
}

// leaseConf is a test's lease options with its generator's layout and
// other generator options, passed to node.NewLease.
type leaseConf struct {
	node.LeaseOptions
	Layout generator.Layout // the zero Layout: the default
	Gen    []generator.SnowflakeOption
}

// gen returns the generator options of c.
func (c leaseConf) gen() []generator.SnowflakeOption {
	if c.Layout.IsZero() {
		return c.Gen
	}
	return append([]generator.SnowflakeOption{generator.WithLayout(c.Layout)}, c.Gen...)
}

func short(t testing.TB, bits uint8) leaseConf {
	return leaseConf{Layout: layout(t, bits), LeaseOptions: node.LeaseOptions{TTL: 600 * time.Millisecond, RenewEvery: 100 * time.Millisecond, Margin: 150 * time.Millisecond}}
}

func TestLeaseContention(t *testing.T) {
	t.Parallel()
	for _, sm := range stores() {
		t.Run(sm.name, func(t *testing.T) {
			s := sm.make(t)
			const n = 24
			ctx := context.Background()
			var mu sync.Mutex
			var got []int64
			var leases []*node.Lease
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() {
					l, err := s.lease(ctx, leaseConf{Layout: layout(t, 5)})
					if !(assertNoError(t, err)) {
						return
					}
					mu.Lock()
					got, leases = append(got, l.Node()), append(leases, l)
					mu.Unlock()
				})
			}
			wg.Wait()
			sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
			want := make([]int64, n)
			for i := range want {
				want[i] = int64(i)
			}
			require.Equal(t, want, got, "the lowest ids, each once")
			// Fill the rest, then one more is refused.
			for range 32 - n {
				l, err := s.lease(ctx, leaseConf{Layout: layout(t, 5)})
				require.NoError(t, err)
				leases = append(leases, l)
			}
			_, err := s.lease(ctx, leaseConf{Layout: layout(t, 5)})
			require.ErrorIs(t, err, node.ErrExhausted)
			// Release frees an id for the next claimer at once.
			require.NoError(t, leases[7].Close(ctx))
			l, err := s.lease(ctx, leaseConf{Layout: layout(t, 5)})
			require.NoError(t, err)
			require.Equal(t, leases[7].Node(), l.Node())
			for _, l := range append(leases, l) {
				require.NoError(t, l.Close(ctx))
			}
		})
	}
}

func assertNoError(t *testing.T, err error) bool {
	t.Helper()
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}

func TestLeaseTakeoverHonoursMark(t *testing.T) {
	t.Parallel()
	for _, sm := range stores() {
		t.Run(sm.name, func(t *testing.T) {
			s := sm.make(t)
			ctx := context.Background()
			// A dead holder of node 0 recorded a mark 300 ms in our future;
			// we also run with a clock 200 ms behind.
			mark := time.Now().Add(300 * time.Millisecond)
			s.fake(t, 0, mark)
			o := short(t, 4)
			o.Gen = append(o.Gen, generator.WithClock(testclock.Offset{D: -200 * time.Millisecond}))
			l, err := s.lease(ctx, o)
			require.NoError(t, err)
			defer l.Close(ctx)
			require.Equal(t, int64(0), l.Node(), "the expired id is the lowest free one")
			require.WithinDuration(t, mark, l.NotBefore(), time.Microsecond)
			g, err := node.NewSnowflake(ctx, l)
			require.NoError(t, err)
			id, err := g.Next()
			require.NoError(t, err)
			p, err := o.Layout.Decompose(id)
			require.NoError(t, err)
			require.True(t, p.Time.After(mark.Truncate(time.Millisecond)), "first id %v not after mark %v", p.Time, mark)
		})
	}
}

func TestLeaseReleaseRecordsExactMark(t *testing.T) {
	t.Parallel()
	for _, sm := range stores() {
		t.Run(sm.name, func(t *testing.T) {
			s := sm.make(t)
			ctx := context.Background()
			// A long TTL makes the renewal bound (about now + TTL) easy to
			// tell from the exact mark Close records.
			o := leaseConf{Layout: layout(t, 4), LeaseOptions: node.LeaseOptions{TTL: 5 * time.Second, RenewEvery: 100 * time.Millisecond}}
			a, err := s.lease(ctx, o)
			require.NoError(t, err)
			ga, err := node.NewSnowflake(ctx, a)
			require.NoError(t, err)
			var last generator.Parts
			for range 1000 {
				id, err := ga.Next()
				require.NoError(t, err)
				last, _ = o.Layout.Decompose(id)
			}
			require.NoError(t, a.Close(ctx))
			_, err = ga.Next()
			require.ErrorIs(t, err, generator.ErrFenced)
			require.ErrorIs(t, err, node.ErrLeaseClosed)

			b, err := s.lease(ctx, o)
			require.NoError(t, err)
			defer b.Close(ctx)
			require.Equal(t, a.Node(), b.Node())
			require.False(t, b.NotBefore().Before(last.Time), "mark %v before last id %v", b.NotBefore(), last.Time)
			require.Less(t, b.NotBefore().Sub(last.Time), 2*time.Second, "clean release records the exact time, not the TTL bound")
			gb, err := node.NewSnowflake(ctx, b)
			require.NoError(t, err)
			id, err := gb.Next()
			require.NoError(t, err)
			p, _ := o.Layout.Decompose(id)
			require.Greater(t, p.Tick, last.Tick)
		})
	}
}

// TestLeaseRenewalFailureFences: a lease whose node another owner took,
// or whose record was deleted, is lost at the next renewal and heals: on
// another node when the old one is held, on the same node when it is free
// (its IDs then continue above the earlier ones). A lease whose store
// cannot be reached stops issuing TTL - Margin after its last renewal
// started.
func TestLeaseRenewalFailureFences(t *testing.T) {
	t.Parallel()
	for _, sm := range stores() {
		t.Run(sm.name, func(t *testing.T) {
			s := sm.make(t)
			cases := []struct {
				name     string
				breakIt  func(t *testing.T, l *node.Lease)
				sameNode bool
			}{
				{"stolen", func(t *testing.T, l *node.Lease) { s.steal(t, l.Node()) }, false},
				{"deleted", func(t *testing.T, l *node.Lease) { s.remove(t, l.Node()) }, true},
			}
			ctx := context.Background()
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					o := short(t, 4)
					l, err := s.lease(ctx, o)
					require.NoError(t, err)
					defer l.Close(ctx)
					old := l.Node()
					g, err := node.NewSnowflake(ctx, l)
					require.NoError(t, err)
					before, ok := tryNextID(t, g, healSlack)
					if !ok {
						t.Logf("fenced throughout on a busy machine: %+v", l.Stats())
						return
					}
					st0 := l.Stats() // a busy machine may have made it heal already
					c.breakIt(t, l)
					// The next renewal (within RenewEvery) finds the loss;
					// a deleted record, or one another owner holds while
					// the lease is trusted, is one the store forgot, so the
					// heal's IDs start after the horizon.
					deadline := time.Now().Add(o.RenewEvery + healSlack + o.TTL + o.Layout.Spec().Unit + 500*time.Millisecond)
					for l.Stats().Reclaims == st0.Reclaims {
						require.True(t, time.Now().Before(deadline), "never re-claimed: %+v", l.Stats())
						time.Sleep(time.Millisecond)
					}
					st := l.Stats()
					require.GreaterOrEqual(t, st.Fences, uint64(1), "a busy machine may also let it lapse")
					if st.Fences == st0.Fences+1 && st.Reclaims == st0.Reclaims+1 {
						if c.sameNode {
							// The old node is free again; the store prefers
							// it (Store.Claim), or takes a lower free one.
							require.LessOrEqual(t, st.Node, old)
						} else {
							require.NotEqual(t, old, st.Node)
						}
					}
					after, ok := tryNextID(t, g, healSlack)
					if !ok {
						t.Logf("fenced throughout on a busy machine: %+v", l.Stats())
						return
					}
					p, _ := o.Layout.Decompose(after)
					require.Equal(t, g.Node(), p.Node)
					if st.Node == old {
						require.Greater(t, after, before)
					}
				})
			}
			t.Run("unreachable", func(t *testing.T) {
				o := short(t, 4)
				l, closeConn := s.broken(t, o)
				defer l.Close(ctx)
				g, err := node.NewSnowflake(ctx, l)
				require.NoError(t, err)
				nextID(t, g, healSlack)
				closeConn()
				// Every Next that began at or after the last successful
				// renewal's start + TTL - Margin must fail.
				var lastOKStart time.Time
				deadline := time.Now().Add(o.TTL + healSlack)
				for {
					require.True(t, time.Now().Before(deadline), "Next still issues")
					start := time.Now()
					if _, err := g.Next(); err != nil {
						require.ErrorIs(t, err, generator.ErrFenced)
						require.ErrorIs(t, err, node.ErrLeaseExpired)
						break
					}
					lastOKStart = start
					time.Sleep(time.Millisecond)
				}
				renewed := l.Stats().LastRenewal
				require.Less(t, lastOKStart.Sub(renewed), o.TTL-o.Margin, "an ID was asked for after the lease's limit")
			})
		})
	}
}

// requireFenced calls Next until it fails, within d, with an error wrapping
// generator.ErrFenced and want.
func requireFenced(t *testing.T, g *generator.Snowflake, want error, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	var last error
	for time.Now().Before(deadline) {
		if _, err := g.Next(); err != nil {
			require.ErrorIs(t, err, generator.ErrFenced)
			if errors.Is(err, want) {
				return
			}
			// A machine too busy to renew in time fences by expiry first.
			require.ErrorIs(t, err, node.ErrLeaseExpired)
			last = err
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("Next did not fail with %v within %v after the lease broke (last error %v)", want, d, last)
}

func TestLeaseOptionsInvalid(t *testing.T) {
	t.Parallel()
	db := testdb.SQLite(t)
	cases := []node.LeaseOptions{
		{TTL: time.Millisecond},
		{TTL: time.Second, Margin: time.Second},
		{TTL: time.Second, Margin: 100 * time.Millisecond, RenewEvery: 950 * time.Millisecond},
	}
	for i, o := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			_, err := node.NewLease(context.Background(), sqllease.NewStore(db, sqllease.StoreOptions{}), o)
			require.ErrorIs(t, err, generator.ErrInvalidConfig)
		})
	}
	// Bad generator options fail as generator.NewSnowflake fails, before
	// anything is written.
	for _, gen := range []generator.SnowflakeOption{
		generator.WithBorrowAhead(-1), generator.WithPerCPUBlocks(0), generator.WithClock(nil), generator.WithBackwardTolerance(-1),
	} {
		_, err := node.NewLease(context.Background(), sqllease.NewStore(db, sqllease.StoreOptions{}), node.LeaseOptions{}, gen)
		require.ErrorIs(t, err, generator.ErrInvalidConfig)
	}
	_, err := node.NewLease(context.Background(), sqllease.NewStore(db, sqllease.StoreOptions{}), node.LeaseOptions{}, generator.WithLayout(generator.Layout{}))
	require.ErrorIs(t, err, generator.ErrInvalidLayout)
	var tables int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = 'idkit_node_leases'").Scan(&tables))
	require.Zero(t, tables, "no lease table made for bad options")
	_, err = node.NewLease(context.Background(), sqllease.NewStore(nil, sqllease.StoreOptions{}), node.LeaseOptions{})
	require.True(t, errors.Is(err, generator.ErrInvalidConfig))
	_, err = node.NewLease(context.Background(), sqllease.NewStore(db, sqllease.StoreOptions{Table: "bad name; DROP TABLE x"}), node.LeaseOptions{})
	require.ErrorIs(t, err, generator.ErrInvalidConfig)
	for _, s := range []node.Store{sqllease.NewStore(db, sqllease.StoreOptions{Table: "bad name; DROP TABLE x"}), sqllease.NewStore(nil, sqllease.StoreOptions{})} {
		_, err = s.Claim(context.Background(), node.Claim{Owner: "a", TTL: time.Second, Prefer: -1})
		require.ErrorIs(t, err, generator.ErrInvalidConfig)
		_, err = s.Renew(context.Background(), node.Renewal{Owner: "a", TTL: time.Second})
		require.ErrorIs(t, err, generator.ErrInvalidConfig)
		require.ErrorIs(t, s.Release(context.Background(), node.Release{Owner: "a"}), generator.ErrInvalidConfig)
	}
}

// sqlLease is a lease in db's lease table table.
func sqlLease(ctx context.Context, db *sql.DB, table string, o leaseConf) (*node.Lease, error) {
	s := sqllease.NewStore(db, sqllease.StoreOptions{Table: table})
	return node.NewLease(ctx, s, o.LeaseOptions, o.gen()...)
}

// redisLease is a lease in the Redis hash key.
func redisLease(ctx context.Context, c *redis.Client, key string, o leaseConf) (*node.Lease, error) {
	return node.NewLease(ctx, redislease.NewStore(c, redislease.StoreOptions{Key: key}), o.LeaseOptions, o.gen()...)
}

// nextID returns g's next ID, retrying while the lease is fenced (a busy
// machine may let a short lease lapse) for at most within.
func nextID(t *testing.T, g *generator.Snowflake, within time.Duration) types.Snowflake {
	t.Helper()
	id, ok := tryNextID(t, g, within)
	require.True(t, ok, "no ID within %v", within)
	return id
}

// tryNextID is nextID reporting false instead of failing: a lease that a
// busy machine keeps fencing is correct, and the caller checks safety.
func tryNextID(t *testing.T, g *generator.Snowflake, within time.Duration) (types.Snowflake, bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		id, err := g.Next()
		if err == nil {
			return id, true
		}
		require.ErrorIs(t, err, generator.ErrFenced)
		if !time.Now().Before(deadline) {
			return 0, false
		}
		time.Sleep(time.Millisecond)
	}
}

// nextIDs returns up to n IDs of g, skipping refusals while the lease is
// fenced, for at most within: a busy machine may let a short lease lapse,
// which is correct; the IDs returned are checked for safety.
func nextIDs(t *testing.T, g *generator.Snowflake, n int, within time.Duration) []types.Snowflake {
	t.Helper()
	deadline := time.Now().Add(within)
	var ids []types.Snowflake
	for len(ids) < n && time.Now().Before(deadline) {
		id, err := g.Next()
		if err != nil {
			require.ErrorIs(t, err, generator.ErrFenced)
			time.Sleep(time.Millisecond)
			continue
		}
		ids = append(ids, id)
	}
	return ids
}

// delRedis deletes the Redis hash key and its index.
func delRedis(c *redis.Client, key string) {
	c.Del(context.Background(), key, "{"+key+"}:held", "{"+key+"}:free")
}

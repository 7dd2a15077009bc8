package node_test

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/internal/testdb"
)

func TestFromEnv(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		env  *string
		src  generator.NodeSource
		want int64
		err  error
	}{
		{"env", ptr("17"), node.FromEnv("IDKIT_TEST_NODE"), 17, nil},
		{"env spaces", ptr(" 3 "), node.FromEnv("IDKIT_TEST_NODE"), 3, nil},
		{"env empty", ptr(""), node.FromEnv("IDKIT_TEST_NODE"), 0, node.ErrNoNodeID},
		{"env junk", ptr("x1"), node.FromEnv("IDKIT_TEST_NODE"), 0, node.ErrNoNodeID},
		{"env negative", ptr("-4"), node.FromEnv("IDKIT_TEST_NODE"), 0, node.ErrNoNodeID},
		{"env unset", nil, node.FromEnv("IDKIT_TEST_NODE_UNSET"), 0, node.ErrNoNodeID},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.env != nil {
				t.Setenv("IDKIT_TEST_NODE", *c.env)
			}
			got, err := c.src.NodeID(ctx)
			if c.err != nil {
				require.ErrorIs(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func ptr(s string) *string { return &s }

func ipNet(t *testing.T, cidr string) net.Addr {
	ip, n, err := net.ParseCIDR(cidr)
	require.NoError(t, err)
	n.IP = ip
	return n
}

func TestPrivateIPNode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		addrs []string
		bits  uint8
		want  int64
		err   error
	}{
		{"sonyflake 16 bits", []string{"127.0.0.1/8", "10.1.2.3/16"}, 16, 0x0203, nil},
		{"low bits of a /24", []string{"192.168.7.200/24"}, 10, 0x3c8, nil},
		{"host part fits", []string{"10.0.0.9/8"}, 4, 9, nil},
		{"host part too wide", []string{"10.0.3.7/8"}, 4, 0, generator.ErrNodeOutOfRange},
		{"small subnet, small field", []string{"172.16.5.6/28"}, 4, 6, nil},
		{"cgnat range", []string{"100.64.1.2/24"}, 8, 2, nil},
		{"public only", []string{"8.8.8.8/24", "::1/128"}, 16, 0, node.ErrNoNodeID},
		{"no node bits", []string{"10.1.2.3/16"}, 0, 0, node.ErrNoNodeID},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var addrs []net.Addr
			for _, a := range c.addrs {
				addrs = append(addrs, ipNet(t, a))
			}
			got, err := node.PrivateIPNode(addrs, c.bits)
			if c.err != nil {
				require.ErrorIs(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
		})
	}
}

func FuzzPrivateIPNode(f *testing.F) {
	f.Add(uint32(0x0a010203), uint8(16), uint8(16))
	f.Add(uint32(0xc0a807c8), uint8(24), uint8(4))
	f.Fuzz(func(t *testing.T, ip uint32, ones, bits uint8) {
		ones %= 33
		a := &net.IPNet{IP: net.IPv4(byte(ip>>24), byte(ip>>16), byte(ip>>8), byte(ip)), Mask: net.CIDRMask(int(ones), 32)}
		id, err := node.PrivateIPNode([]net.Addr{a}, bits)
		if err != nil {
			if !errors.Is(err, node.ErrNoNodeID) && !errors.Is(err, generator.ErrNodeOutOfRange) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		// The id is the address's low bits, and it keeps the whole host part.
		require.Equal(t, int64(ip)&(1<<bits-1), id)
		host := ip &^ (^uint32(0) << (32 - ones))
		if ones == 0 {
			host = ip
		}
		require.Zero(t, host>>bits, "host bits dropped")
	})
}

// TestFromPrivateIPCheckHook runs on any host: the interface addresses are
// injected (not parallel: it swaps a package hook).
func TestFromPrivateIPCheckHook(t *testing.T) {
	node.SetInterfaceAddrs(t, func() ([]net.Addr, error) {
		return []net.Addr{ipNet(t, "127.0.0.1/8"), ipNet(t, "10.1.2.3/16")}, nil
	})
	ctx := context.Background()
	refuse := errors.New("already taken")
	var checked int64 = -1
	src := node.FromPrivateIP(generator.Sonyflake(), func(ctx context.Context, id int64) error { checked = id; return refuse })
	_, err := src.NodeID(ctx)
	require.ErrorIs(t, err, node.ErrNoNodeID)
	require.ErrorIs(t, err, refuse)
	require.Equal(t, int64(0x0203), checked, "the hook sees the derived id")

	id, err := node.FromPrivateIP(generator.Sonyflake(), func(context.Context, int64) error { return nil }).NodeID(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(0x0203), id)
	id, err = node.FromPrivateIP(generator.Sonyflake(), nil).NodeID(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(0x0203), id)

	node.SetInterfaceAddrs(t, func() ([]net.Addr, error) { return []net.Addr{ipNet(t, "8.8.8.8/24")}, nil })
	_, err = src.NodeID(ctx)
	require.ErrorIs(t, err, node.ErrNoNodeID)
	require.Equal(t, int64(0x0203), checked, "no hook call without an id")

	broken := errors.New("no interfaces")
	node.SetInterfaceAddrs(t, func() ([]net.Addr, error) { return nil, broken })
	_, err = src.NodeID(ctx)
	require.ErrorIs(t, err, node.ErrNoNodeID)
	require.ErrorIs(t, err, broken)
}

func TestDisposable(t *testing.T) {
	t.Parallel()
	for _, d := range []struct {
		name string
		open func(testing.TB) *sql.DB
	}{{"postgres", testdb.Postgres}, {"mariadb", testdb.MySQL}, {"sqlite", testdb.SQLite}} {
		t.Run(d.name, func(t *testing.T) {
			db := d.open(t) // a missing server skips this database only
			table := testdb.Name("registry")
			t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + table) })
			src := node.Disposable(db, node.DisposableOptions{Table: table, MaxNode: 20})
			var mu sync.Mutex
			seen := map[int64]bool{}
			var wg sync.WaitGroup
			for range 20 {
				wg.Go(func() {
					id, err := src.NodeID(context.Background())
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					defer mu.Unlock()
					if seen[id] || id < 1 || id > 20 {
						t.Errorf("id %d repeated or out of range", id)
					}
					seen[id] = true
				})
			}
			wg.Wait()
			_, err := src.NodeID(context.Background())
			require.ErrorIs(t, err, node.ErrExhausted, "the 21st start does not fit")
			_, err = node.Disposable(db, node.DisposableOptions{Table: table}).NodeID(context.Background())
			require.ErrorIs(t, err, generator.ErrInvalidConfig)
		})
	}
}

// TestDisposableConcurrentDefaults: NodeID from many goroutines with the
// default table name (run with -race).
func TestDisposableConcurrentDefaults(t *testing.T) {
	t.Parallel()
	db := testdb.SQLite(t) // a fresh database: the default table is ours
	src := node.Disposable(db, node.DisposableOptions{MaxNode: 100})
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			id, err := src.NodeID(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if seen[id] {
				t.Errorf("id %d repeated", id)
			}
			seen[id] = true
		})
	}
	wg.Wait()
	require.Len(t, seen, 8)
	var n int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM idkit_node_registry").Scan(&n))
	require.Equal(t, 8, n, "one row per start in the default table")
}

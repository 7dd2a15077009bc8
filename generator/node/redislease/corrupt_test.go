package redislease_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/internal/testservers"
)

// TestCorruptHashFields: a field of the whole hash that is not an integer
// within 2^53 (a mark beyond int64 once in nanoseconds, words) fails the
// claim with node.ErrCorrupt naming the field, and the claim writes nothing.
func TestCorruptHashFields(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	r := testservers.StartRedis(t)
	c := redis.NewClient(&redis.Options{Addr: r.Addr()})
	defer c.Close()
	ctx := context.Background()
	for _, tc := range []struct{ field, value string }{
		{"mark", "99999999999999999999"},
		{"mark", "9300000000000000"}, // Unix µs that overflow int64 ns
		{"hz", "ten seconds"},
		{"rs", "nan"},
		{"seeded", "1.5"},
		{"v", "-inf"},
	} {
		t.Run(tc.field+"="+tc.value, func(t *testing.T) {
			key := "leases-corrupt-" + tc.field + "-" + tc.value
			l, err := node.NewLease(ctx, redislease.NewStore(c, redislease.StoreOptions{Key: key}), node.LeaseOptions{})
			require.NoError(t, err)
			require.NoError(t, l.Close(ctx))
			require.NoError(t, c.HSet(ctx, key, tc.field, tc.value).Err())
			before, err := c.HGetAll(ctx, key).Result()
			require.NoError(t, err)
			_, err = node.NewLease(ctx, redislease.NewStore(c, redislease.StoreOptions{Key: key}), node.LeaseOptions{})
			require.ErrorIs(t, err, node.ErrCorrupt)
			require.ErrorContains(t, err, "field "+tc.field+" holds")
			after, err := c.HGetAll(ctx, key).Result()
			require.NoError(t, err)
			require.Equal(t, before, after, "the refused claim wrote nothing")
		})
	}
}

// TestCorruptOwnFieldsHeal: a running holder's own fields are corrupted
// (its node's mark, then its expiry). Its renewal fails as a loss, naming
// the field, and the holder heals: its claim rewrites the fields and waits
// out the horizon, and it issues again, no ID twice.
func TestCorruptOwnFieldsHeal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	r := testservers.StartRedis(t)
	c := redis.NewClient(&redis.Options{Addr: r.Addr()})
	defer c.Close()
	ctx := context.Background()
	o := faultOptions()
	a := issue(storeVia(t, r.Addr(), "leases", redislease.StoreOptions{}), o)
	a.started(t, 10*time.Second)
	for i, field := range []string{"h:0", "e:0"} {
		require.NoError(t, c.HSet(ctx, "leases", field, "garbage").Err())
		// A fences at its next renewal (RenewEvery), waits the horizon
		// (TTL + unit + MaxClockOffset, 2.5 s) and issues again; slack for
		// a busy machine.
		deadline := time.Now().Add(4 * o.TTL)
		for a.l.Stats().Reclaims <= uint64(i) {
			if time.Now().After(deadline) {
				t.Fatalf("A did not heal after %s was corrupted: %+v, %v", field, a.l.Stats(), a.l.Fence())
			}
			time.Sleep(10 * time.Millisecond)
		}
		a.mu.Lock()
		n := len(a.ids)
		a.mu.Unlock()
		deadline = time.Now().Add(2 * o.TTL)
		for {
			a.mu.Lock()
			more := len(a.ids) > n
			a.mu.Unlock()
			if more {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("A issued nothing after healing from %s: %+v", field, a.l.Stats())
			}
			time.Sleep(10 * time.Millisecond)
		}
		v, err := c.HGet(ctx, "leases", field).Result()
		require.NoError(t, err)
		_, err = strconv.ParseInt(v, 10, 64)
		require.NoError(t, err, "%s rewritten", field)
	}
	ids := a.halt()
	slices.Sort(ids)
	require.Equal(t, len(ids), len(slices.Compact(ids)), "an ID issued twice")
}

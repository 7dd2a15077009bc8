package redislease_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/internal/testdb"
)

func TestNewNilClient(t *testing.T) {
	t.Parallel()
	_, err := node.NewLease(context.Background(), redislease.NewStore(nil, redislease.StoreOptions{}), node.LeaseOptions{})
	require.ErrorIs(t, err, generator.ErrInvalidConfig)
}

// TestNewLease claims, issues and releases through the Redis hash, checking the
// hash's fields.
func TestNewLease(t *testing.T) {
	t.Parallel()
	c := redis.NewClient(&redis.Options{Addr: testdb.RequireRedis(t)})
	defer c.Close()
	ctx := context.Background()
	key := testdb.Name("leases")
	t.Cleanup(func() { c.Del(context.Background(), key, "{"+key+"}:held", "{"+key+"}:free") })

	l, err := node.NewLease(ctx, redislease.NewStore(c, redislease.StoreOptions{Key: key}), node.LeaseOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(0), l.Node())
	owner, err := c.HGet(ctx, key, "o:0").Result()
	require.NoError(t, err)
	require.Equal(t, l.Stats().Owner, owner)

	g, err := node.NewSnowflake(ctx, l)
	require.NoError(t, err)
	id, err := g.Next()
	require.NoError(t, err)
	p, err := generator.Twitter().Decompose(id)
	require.NoError(t, err)
	require.Equal(t, int64(0), p.Node)

	require.NoError(t, l.Close(ctx))
	owner, err = c.HGet(ctx, key, "o:0").Result()
	require.NoError(t, err)
	require.Empty(t, owner, "released")
	mark, err := c.HGet(ctx, key, "h:0").Int64()
	require.NoError(t, err)
	require.GreaterOrEqual(t, mark, p.Time.UnixMicro(), "the mark covers the last ID")
}

// defaultKey is the documented default of StoreOptions.Key.
const defaultKey = "idkit:node_leases"

// TestNewDefaultKey: an empty Key means the default key.
func TestNewDefaultKey(t *testing.T) {
	// Not parallel with anything else using the default key; this package
	// has no other such test.
	c := redis.NewClient(&redis.Options{Addr: testdb.RequireRedis(t)})
	defer c.Close()
	ctx := context.Background()
	l, err := node.NewLease(ctx, redislease.NewStore(c, redislease.StoreOptions{}), node.LeaseOptions{}, generator.WithLayout(generator.Twitter()))
	require.NoError(t, err)
	defer l.Close(ctx)
	n := itoa(l.Node())
	t.Cleanup(func() { c.HDel(context.Background(), defaultKey, "o:"+n, "e:"+n, "h:"+n) })
	owner, err := c.HGet(ctx, defaultKey, "o:"+n).Result()
	require.NoError(t, err)
	require.Equal(t, l.Stats().Owner, owner)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

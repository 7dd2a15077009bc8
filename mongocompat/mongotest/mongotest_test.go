package mongotest_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/idkit-go/idkit/mongocompat/mongotest"
)

func TestMain(m *testing.M) { os.Exit(mongotest.Main(m)) }

func TestStartEmbedded(t *testing.T) {
	t.Setenv(mongotest.EnvURI, "")
	srv, err := mongotest.Start()
	require.NoError(t, err)
	assert.True(t, srv.Embedded())
	assert.Regexp(t, `^mongodb://127\.0\.0\.1:\d+/$`, srv.URI())

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := mongo.Connect(options.Client().ApplyURI(srv.URI()))
	require.NoError(t, err)
	coll := c.Database("mongotest").Collection("probe")
	_, err = coll.InsertOne(ctx, bson.M{"_id": 1})
	require.NoError(t, err)
	n, err := coll.CountDocuments(ctx, bson.M{})
	require.NoError(t, err)
	assert.EqualValues(t, 1, n)
	require.NoError(t, c.Disconnect(ctx))

	require.NoError(t, srv.Close())
	require.NoError(t, srv.Close(), "Close is idempotent")
	c2, err := mongo.Connect(options.Client().ApplyURI(srv.URI()).SetServerSelectionTimeout(300 * time.Millisecond))
	require.NoError(t, err)
	defer c2.Disconnect(context.Background())
	assert.Error(t, c2.Ping(ctx, nil), "stopped server still answers")
}

func TestSharedURI(t *testing.T) {
	uri := mongotest.URI(t)
	assert.Equal(t, uri, mongotest.URI(t), "one server per test binary")
	if os.Getenv(mongotest.EnvURI) != "" {
		assert.Equal(t, os.Getenv(mongotest.EnvURI), uri)
	}
}

func TestStartUsesEnv(t *testing.T) {
	t.Setenv(mongotest.EnvURI, "")
	emb, err := mongotest.Start()
	require.NoError(t, err)
	defer emb.Close()
	t.Setenv(mongotest.EnvURI, emb.URI())
	srv, err := mongotest.Start()
	require.NoError(t, err)
	assert.False(t, srv.Embedded())
	assert.Equal(t, emb.URI(), srv.URI())
	assert.NoError(t, srv.Close())
}

// An unreachable IDKIT_MONGODB_URI fails within seconds, naming the variable.
func TestStartUnreachableEnv(t *testing.T) {
	t.Setenv(mongotest.EnvURI, "mongodb://127.0.0.1:1/")
	start := time.Now()
	srv, err := mongotest.Start()
	assert.Nil(t, srv)
	require.ErrorIs(t, err, mongotest.ErrUnreachable)
	assert.Contains(t, err.Error(), "IDKIT_MONGODB_URI")
	assert.Less(t, time.Since(start), 5*time.Second)
}

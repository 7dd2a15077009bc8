package mongotest

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/idkit-go/idkit/internal/testdb"
)

// shared is the package-wide server of a test binary, started on first use.
var shared struct {
	once sync.Once
	srv  *Server
	err  error
	ping error
}

// Main runs the tests of m and then stops the shared server if [URI]
// started one. Call it from TestMain: os.Exit(mongotest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if shared.srv != nil {
		if err := shared.srv.Close(); err != nil && code == 0 {
			code = 1
		}
	}
	return code
}

// URI returns the connection string of the test binary's shared server,
// starting it on the first call (see [Start]); every test of the package
// uses the same server, so tests must use names of their own
// (testdb.Name). Without [Main] in TestMain an embedded server runs until
// the test binary exits.
//
// If the embedded server cannot start, t fails. If IDKIT_MONGODB_URI names
// a server that does not answer a ping within 10 seconds, t is skipped, or
// fails when CI is set, as testdb does for the other servers.
func URI(t testing.TB) string {
	t.Helper()
	shared.once.Do(func() {
		shared.srv, shared.err = Start()
		if shared.err == nil && !shared.srv.Embedded() {
			shared.ping = ping(shared.srv.URI())
		}
	})
	if shared.err != nil {
		t.Fatalf("start MongoDB test server: %v", shared.err)
	}
	if shared.ping != nil {
		testdb.Unavailable(t, "MongoDB ("+EnvURI+")", shared.ping)
	}
	return shared.srv.URI()
}

func ping(uri string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		return err
	}
	defer c.Disconnect(context.Background())
	return c.Ping(ctx, nil)
}

// Package mongotest starts a MongoDB-compatible server for tests of code
// that uses idkit's types with MongoDB, so they need no setup.
//
// By default it runs FerretDB (v1.24.0, https://www.ferretdb.com) embedded
// in the test process, with its SQLite backend in a temporary directory and
// a free port of 127.0.0.1; FerretDB speaks MongoDB's wire protocol, so
// both official Go drivers connect to it. When the environment variable
// IDKIT_MONGODB_URI is set, that server (for example a real mongod) is used
// instead and nothing is started; if it does not answer within a few
// seconds, [Start] returns an error and [URI] fails the test, both naming
// the variable.
//
// In tests, share one server per test binary:
//
//	func TestMain(m *testing.M) { os.Exit(mongotest.Main(m)) }
//
//	func TestOrders(t *testing.T) {
//		client, err := mongo.Connect(options.Client().ApplyURI(mongotest.URI(t)))
//		...
//	}
//
// Tests of one binary share the server, so each should use a database or
// collection name of its own. Programs (examples, tools) use [Start] and
// [Server.Close]. Importing this package compiles FerretDB and what it
// uses, both MongoDB drivers included; import it from tests only.
package mongotest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// EnvURI names the environment variable that points tests at an existing
// MongoDB server instead of the embedded one.
const EnvURI = "IDKIT_MONGODB_URI"

// ErrUnreachable reports that the server named by [EnvURI] did not answer.
var ErrUnreachable = errors.New("mongotest: the server named by " + EnvURI + " does not answer")

// pingTimeout bounds the check of the server named by [EnvURI].
const pingTimeout = 3 * time.Second

// Server is a MongoDB-compatible server: either FerretDB embedded in this
// process or an external server named by IDKIT_MONGODB_URI. Its methods are
// safe for concurrent use.
type Server struct {
	uri      string
	embedded bool

	closeOnce sync.Once
	cancel    context.CancelFunc
	done      chan struct{}
	dir       string
	closeErr  error
}

// Start returns the server named by IDKIT_MONGODB_URI if that variable is
// set, after checking within about 3 seconds that it answers a ping (an
// error wrapping [ErrUnreachable] and naming the variable if not), and
// otherwise starts FerretDB in this process, with the SQLite backend in a
// new temporary directory and a TCP listener on a free port of 127.0.0.1;
// FerretDB's logs are discarded and it accepts connections when Start
// returns. It returns an error if the directory cannot be made or FerretDB
// cannot start. The caller must call [Server.Close] when done, which stops
// an embedded server and removes its directory.
func Start() (*Server, error) {
	if uri := os.Getenv(EnvURI); uri != "" {
		if err := ping(uri); err != nil {
			return nil, fmt.Errorf("%w: %s=%q: %v (unset %s to use an embedded server)", ErrUnreachable, EnvURI, uri, err, EnvURI)
		}
		return &Server{uri: uri}, nil
	}
	return startEmbedded()
}

// ping connects to uri and pings it within pingTimeout.
func ping(uri string) error {
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).
		SetServerSelectionTimeout(pingTimeout).SetConnectTimeout(pingTimeout))
	if err != nil {
		return err
	}
	defer c.Disconnect(context.Background())
	return c.Ping(ctx, nil)
}

// startEmbedded starts FerretDB in this process, as [Start] describes.
func startEmbedded() (*Server, error) {
	dir, err := os.MkdirTemp("", "idkit-ferretdb-")
	if err != nil {
		return nil, fmt.Errorf("mongotest: %w", err)
	}
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: "127.0.0.1:0"},
		Logger:    slog.New(slog.DiscardHandler),
		Handler:   "sqlite",
		SQLiteURL: "file:" + dir + "/",
	})
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("mongotest: start FerretDB: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		// The listener is bound by ferretdb.New, so the address is known.
		uri:      f.MongoDBURI(),
		embedded: true,
		cancel:   cancel,
		done:     make(chan struct{}),
		dir:      dir,
	}
	go func() {
		defer close(s.done)
		_ = f.Run(ctx)
	}()
	return s, nil
}

// URI returns the server's connection string, for example
// mongodb://127.0.0.1:40123/.
func (s *Server) URI() string { return s.uri }

// Embedded reports whether the server is FerretDB running in this process.
func (s *Server) Embedded() bool { return s.embedded }

// Close stops an embedded server, waits for it to finish and removes its
// data directory; for an external server it does nothing. It returns an
// error if the directory cannot be removed. Calls after the first return
// the first call's result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		if !s.embedded {
			return
		}
		s.cancel()
		<-s.done
		if err := os.RemoveAll(s.dir); err != nil {
			s.closeErr = errors.Join(errors.New("mongotest: remove data directory"), err)
		}
	})
	return s.closeErr
}

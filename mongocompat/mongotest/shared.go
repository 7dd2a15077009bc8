package mongotest

import (
	"sync"
	"testing"
)

// shared is the package-wide server of a test binary, started on first use.
var shared struct {
	once sync.Once
	srv  *Server
	err  error
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
// starting it on the first call (see [Start]); every test of the binary
// uses the same server, so tests must use database or collection names of
// their own. Without [Main] in TestMain an embedded server runs until the
// test binary exits and its temporary directory is left behind.
//
// If the server cannot start, or IDKIT_MONGODB_URI names a server that does
// not answer within about 3 seconds, t fails with the reason, naming the
// variable; every later call fails the same way at once. URI is safe for
// concurrent use.
func URI(t testing.TB) string {
	t.Helper()
	shared.once.Do(func() { shared.srv, shared.err = Start() })
	if shared.err != nil {
		t.Fatalf("MongoDB test server: %v", shared.err)
	}
	return shared.srv.URI()
}

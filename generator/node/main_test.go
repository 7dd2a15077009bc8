package node_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/internal/testdb"
)

// quietRedis keeps go-redis's log (dial errors while a test stops a
// server) and prints it only when a test fails.
type quietRedis struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (q *quietRedis) Printf(_ context.Context, format string, v ...any) {
	q.mu.Lock()
	defer q.mu.Unlock()
	fmt.Fprintf(&q.buf, "redis: "+format+"\n", v...)
}

// TestMain prints how many tests each missing database server skipped,
// and go-redis's connection noise only when a test fails.
func TestMain(m *testing.M) {
	q := &quietRedis{}
	redis.SetLogger(q)
	code := testdb.Main(m)
	if code != 0 {
		os.Stderr.Write(q.buf.Bytes())
	}
	os.Exit(code)
}

package redislease_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
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

// TestMain silences go-redis's connection noise on success.
func TestMain(m *testing.M) {
	q := &quietRedis{}
	redis.SetLogger(q)
	code := m.Run()
	if code != 0 {
		os.Stderr.Write(q.buf.Bytes())
	}
	os.Exit(code)
}

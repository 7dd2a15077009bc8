package testservers

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/redis/go-redis/v9"
)

// quietRedis keeps go-redis's log (dial errors while a test stops a
// server).
type quietRedis struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (q *quietRedis) Printf(_ context.Context, format string, v ...any) {
	q.mu.Lock()
	defer q.mu.Unlock()
	fmt.Fprintf(&q.buf, "redis: "+format+"\n", v...)
}

// QuietRedis runs run (a TestMain's m.Run or testdb.Main(m)) with
// go-redis's log kept aside, and prints that log to standard error only
// when run fails; it returns run's exit code.
func QuietRedis(run func() int) int {
	q := &quietRedis{}
	redis.SetLogger(q)
	code := run()
	if code != 0 {
		q.mu.Lock()
		os.Stderr.Write(q.buf.Bytes())
		q.mu.Unlock()
	}
	return code
}

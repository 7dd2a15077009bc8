package node_test

import (
	"os"
	"testing"

	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/internal/testservers"
)

// TestMain prints how many tests each missing database server skipped,
// and go-redis's connection noise only when a test fails.
func TestMain(m *testing.M) {
	os.Exit(testservers.QuietRedis(func() int { return testdb.Main(m) }))
}

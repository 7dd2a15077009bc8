package sqllease_test

import (
	"os"
	"testing"

	"github.com/idkit-go/idkit/internal/testdb"
)

// TestMain prints how many tests each missing database server skipped.
func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

package redislease_test

import (
	"os"
	"testing"

	"github.com/idkit-go/idkit/internal/testservers"
)

// TestMain silences go-redis's connection noise on success.
func TestMain(m *testing.M) { os.Exit(testservers.QuietRedis(m.Run)) }

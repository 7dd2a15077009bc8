package otherkeys_test

import (
	"os"
	"testing"

	"github.com/idkit-go/idkit/internal/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

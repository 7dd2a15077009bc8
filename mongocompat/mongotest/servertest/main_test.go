package servertest_test

import (
	"os"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/mongocompat/mongotest"
	"github.com/idkit-go/idkit/types"
)

// TestMain shares one MongoDB-compatible server (embedded FerretDB, or
// IDKIT_MONGODB_URI) among the package's tests.
func TestMain(m *testing.M) { os.Exit(mongotest.Main(m)) }

// baseTime is the first second of the IDs the server tests make.
var baseTime = time.Date(2030, 1, 2, 3, 4, 0, 0, time.UTC)

// Document shapes shared by the server tests of both drivers.
type objDoc struct {
	ID   types.ObjectID `bson:"_id"`
	Name string         `bson:"name"`
	Seq  int            `bson:"seq"`
}

type snowDoc struct {
	ID   types.Snowflake `bson:"_id"`
	Name string          `bson:"name"`
	Seq  int             `bson:"seq"`
}

type nullDoc struct {
	ID     types.ObjectID      `bson:"_id"`
	Parent types.NullObjectID  `bson:"parent"`
	Ref    types.NullSnowflake `bson:"ref"`
	Alias  *types.ObjectID     `bson:"alias"`
}

// timedObjectIDs returns perSecond ObjectIDs for each of seconds seconds
// from baseTime, in generation order, made with a fake clock.
func timedObjectIDs(t *testing.T, seconds, perSecond int) []types.ObjectID {
	t.Helper()
	clock := generatortest.NewFakeClock(baseTime)
	g, err := generator.NewObjectID(generator.WithClock(clock))
	require.NoError(t, err)
	var ids []types.ObjectID
	for s := range seconds {
		clock.Set(baseTime.Add(time.Duration(s) * time.Second))
		for range perSecond {
			ids = append(ids, g.Next())
		}
	}
	return ids
}

// snowflakeGen returns a Snowflake generator for node 1 reading a fake
// clock that starts at baseTime.
func snowflakeGen(t *testing.T) (*generator.Snowflake, *generatortest.FakeClock) {
	t.Helper()
	clock := generatortest.NewFakeClock(baseTime)
	g, err := generator.NewSnowflake(1, generator.WithClock(clock))
	require.NoError(t, err)
	return g, clock
}

// shuffled returns the indexes 0..n-1 in a fixed scrambled order, so
// insertion order differs from generation order.
func shuffled(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = (i*7 + 3) % n
	}
	if !isPermutation(idx) {
		for i := range idx {
			idx[i] = n - 1 - i
		}
	}
	return idx
}

func isPermutation(idx []int) bool {
	c := append([]int(nil), idx...)
	sort.Ints(c)
	for i, v := range c {
		if v != i {
			return false
		}
	}
	return true
}

// dbName returns a database name of this test's own.
func dbName() string { return testdb.Name("idkit_mongocompat") }

// layoutMinID returns the smallest Twitter-layout Snowflake of t's tick.
func layoutMinID(t time.Time) (types.Snowflake, error) { return generator.Twitter().MinID(t) }

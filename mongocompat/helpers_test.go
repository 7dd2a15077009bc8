package mongocompat_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/types"
)

// baseTime is the first second of the IDs the tests make.
var baseTime = time.Date(2030, 1, 2, 3, 4, 0, 0, time.UTC)

// Document shapes the fill tests use.
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

// snowflakeGen returns a Snowflake generator for node 1 reading a fake
// clock that starts at baseTime.
func snowflakeGen(t *testing.T) (*generator.Snowflake, *generatortest.FakeClock) {
	t.Helper()
	clock := generatortest.NewFakeClock(baseTime)
	g, err := generator.NewSnowflake(1, generator.WithClock(clock))
	require.NoError(t, err)
	return g, clock
}

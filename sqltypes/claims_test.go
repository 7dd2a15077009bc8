package sqltypes_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/dialect"
	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/sqltypes"
)

// NewObjectIDRange's doc: a to up to the last second an ObjectID can hold,
// 2106-02-07T06:28:15Z, is accepted; a later one is an error.
func TestClaimObjectIDRangeLastSecond(t *testing.T) {
	last := time.Date(2106, 2, 7, 6, 28, 15, 0, time.UTC)
	require.Equal(t, int64(1<<32-1), last.Unix())
	_, err := sqltypes.NewObjectIDRange(base, last)
	require.NoError(t, err)
	_, err = sqltypes.NewObjectIDRange(base, last.Add(time.Second))
	assert.ErrorIs(t, err, sqltypes.ErrInvalidRange)
}

// NewSnowflakeRange's doc: a from at or after the layout's end is an error
// too, and a from before the epoch is moved to the epoch.
func TestClaimSnowflakeRangeBounds(t *testing.T) {
	l := generator.Twitter()
	_, err := sqltypes.NewSnowflakeRange(l, l.End(), l.End().Add(time.Hour))
	assert.ErrorIs(t, err, sqltypes.ErrInvalidRange)
	assert.ErrorIs(t, err, generator.ErrTimeOverflow)

	r, err := sqltypes.NewSnowflakeRange(l, l.Spec().Epoch.Add(-time.Hour), l.Spec().Epoch.Add(time.Second))
	require.NoError(t, err)
	want, err := l.MinID(l.Spec().Epoch.Add(time.Second))
	require.NoError(t, err)
	assert.Equal(t, sqltypes.SnowflakeRange{From: 0, To: want}, r)
}

// The column-type functions' docs, for each dialect GORM reports.
func TestClaimColumnTypes(t *testing.T) {
	for d, want := range map[dialect.Dialect][2]string{
		dialect.Postgres:  {"bytea", "char(24)"},
		dialect.MySQL:     {"binary(12)", "char(24)"},
		dialect.SQLite:    {"blob", "text"},
		dialect.SQLServer: {"binary(12)", "char(24)"},
		"oracle":          {"", ""},
	} {
		assert.Equal(t, want[0], sqltypes.ObjectIDColumnType(d), string(d))
		assert.Equal(t, want[1], sqltypes.HexObjectIDColumnType(d), string(d))
	}
}

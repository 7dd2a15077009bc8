package sqltypes_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/internal/testgorm"
	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestNewSnowflakeRange(t *testing.T) {
	l := generator.Twitter()
	lo, err := l.MinID(base)
	require.NoError(t, err)
	hi, err := l.MinID(base.Add(time.Second))
	require.NoError(t, err)
	tests := []struct {
		name     string
		from, to time.Time
		want     sqltypes.SnowflakeRange
		wantErr  []error
	}{
		{"one second", base, base.Add(time.Second), sqltypes.SnowflakeRange{From: lo, To: hi}, nil},
		{"rounded down to the millisecond", base.Add(500 * time.Microsecond), base.Add(time.Second + 999*time.Microsecond),
			sqltypes.SnowflakeRange{From: lo, To: hi}, nil},
		{"empty", base, base, sqltypes.SnowflakeRange{From: lo, To: lo}, nil},
		{"reversed is empty", base, base.Add(-time.Hour), sqltypes.SnowflakeRange{From: lo, To: lo}, nil},
		{"from before epoch", l.Spec().Epoch.Add(-time.Hour), l.Spec().Epoch, sqltypes.SnowflakeRange{}, nil},
		{"to after end", base, l.End().Add(time.Hour), sqltypes.SnowflakeRange{},
			[]error{sqltypes.ErrInvalidRange, generator.ErrTimeOverflow}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := sqltypes.NewSnowflakeRange(l, tt.from, tt.to)
			for _, w := range tt.wantErr {
				assert.ErrorIs(t, err, w)
			}
			if tt.wantErr == nil {
				require.NoError(t, err)
				assert.Equal(t, tt.want, r)
				assert.Equal(t, []any{r.From, r.To}, r.Args())
			}
		})
	}
	_, err = sqltypes.NewSnowflakeRange(generator.Layout{}, base, base)
	assert.ErrorIs(t, err, generator.ErrInvalidLayout)
	assert.ErrorIs(t, err, sqltypes.ErrInvalidRange)

	r, err := sqltypes.NewSnowflakeRange(l, base, base.Add(time.Second))
	require.NoError(t, err)
	assert.True(t, r.Contains(lo))
	assert.True(t, r.Contains(hi-1))
	assert.False(t, r.Contains(hi))
	assert.False(t, r.Contains(lo-1))
}

func TestNewObjectIDRange(t *testing.T) {
	r, err := sqltypes.NewObjectIDRange(base.Add(300*time.Millisecond), base.Add(2*time.Second))
	require.NoError(t, err)
	assert.Equal(t, types.ObjectIDFromTime(base), r.From)
	assert.Equal(t, types.ObjectIDFromTime(base.Add(2*time.Second)), r.To)
	assert.Equal(t, []any{r.From, r.To}, r.Args())
	assert.Equal(t, []any{r.From.Hex(), r.To.Hex()}, r.HexArgs())
	assert.True(t, r.Contains(r.From))
	assert.False(t, r.Contains(r.To))

	empty, err := sqltypes.NewObjectIDRange(base, base.Add(-time.Second))
	require.NoError(t, err)
	assert.Equal(t, empty.From, empty.To)

	for _, bad := range [][2]time.Time{
		{time.Unix(-1, 0), base},
		{base, time.Unix(1<<32, 0)},
	} {
		_, err := sqltypes.NewObjectIDRange(bad[0], bad[1])
		assert.ErrorIs(t, err, sqltypes.ErrInvalidRange)
	}
}

func TestNewUUIDRange(t *testing.T) {
	r, err := sqltypes.NewUUIDRange(base.Add(300*time.Microsecond), base.Add(2*time.Second))
	require.NoError(t, err)
	assert.Equal(t, types.UUIDv7FromTime(base), r.From)
	assert.Equal(t, types.UUIDv7FromTime(base.Add(2*time.Second)), r.To)
	assert.Equal(t, []any{r.From, r.To}, r.Args())
	assert.True(t, r.Contains(r.From))
	assert.False(t, r.Contains(r.To))
	last := r.To
	last[6], last[15] = 0x6f, 0xff // the millisecond before To, every other bit set
	last[5]--
	assert.True(t, r.Contains(last))

	empty, err := sqltypes.NewUUIDRange(base, base.Add(-time.Second))
	require.NoError(t, err)
	assert.Equal(t, empty.From, empty.To)

	for _, bad := range [][2]time.Time{
		{time.Unix(0, -1), base},
		{base, time.UnixMilli(1 << 48)},
	} {
		_, err := sqltypes.NewUUIDRange(bad[0], bad[1])
		assert.ErrorIs(t, err, sqltypes.ErrInvalidRange)
	}
	_, err = sqltypes.NewUUIDRange(base, time.UnixMilli(1<<48-1))
	assert.NoError(t, err)
}

type rangeSnow struct {
	ID types.Snowflake
	N  int
}

type rangeOID struct {
	ID types.ObjectID
	N  int
}

type rangeUUID struct {
	ID types.UUID
	N  int
}

type rangeHex struct {
	ID sqltypes.HexObjectID
	N  int
}

// TestRangesOnDatabases stores rows made one second apart and checks that
// each range helper returns exactly the rows of [from, to).
func TestRangesOnDatabases(t *testing.T) {
	for _, d := range testgorm.Dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := testgorm.Open(t, d)
			sqlDB, err := db.DB()
			require.NoError(t, err)
			models := []any{&rangeSnow{}, &rangeOID{}, &rangeHex{}, &rangeUUID{}}
			require.NoError(t, db.AutoMigrate(models...))

			clock := generatortest.NewFakeClock(base)
			sf, err := generator.NewSnowflake(1, generator.WithClock(clock))
			require.NoError(t, err)
			og, err := generator.NewObjectID(generator.WithClock(clock))
			require.NoError(t, err)
			const rows = 8
			for i := range rows {
				id, err := sf.Next()
				require.NoError(t, err)
				oid := og.Next()
				require.NoError(t, db.Create(&rangeSnow{ID: id, N: i}).Error)
				require.NoError(t, db.Create(&rangeOID{ID: oid, N: i}).Error)
				require.NoError(t, db.Create(&rangeHex{ID: sqltypes.HexObjectID(oid), N: i}).Error)
				u := types.UUIDv7FromTime(clock.Now())
				u[15] = 0xff // any bits beyond the range's lower bound
				require.NoError(t, db.Create(&rangeUUID{ID: u, N: i}).Error)
				clock.Add(time.Second)
			}
			from, to := base.Add(2*time.Second), base.Add(5*time.Second)
			want := []int{2, 3, 4}

			sr, err := sqltypes.NewSnowflakeRange(generator.Twitter(), from, to)
			require.NoError(t, err)
			or, err := sqltypes.NewObjectIDRange(from, to)
			require.NoError(t, err)

			ur, err := sqltypes.NewUUIDRange(from, to)
			require.NoError(t, err)

			ns := func(q *gorm.DB) []int {
				var got []int
				require.NoError(t, q.Order("n").Pluck("n", &got).Error)
				return got
			}
			assert.Equal(t, want, ns(db.Model(&rangeSnow{}).Scopes(sr.Scope(""))), "Snowflake scope")
			assert.Equal(t, want, ns(db.Model(&rangeSnow{}).Scopes(sr.Scope("id"))), "Snowflake scope by column")
			assert.Equal(t, want, ns(db.Model(&rangeOID{}).Scopes(or.Scope(""))), "ObjectID scope")
			assert.Equal(t, want, ns(db.Model(&rangeHex{}).Scopes(or.HexScope(""))), "hex ObjectID scope")
			assert.Equal(t, want, ns(db.Model(&rangeUUID{}).Scopes(ur.Scope(""))), "UUID scope")

			// Plain SQL through database/sql, with the dialect's placeholders.
			ph := "? AND id < ?"
			if d.Name == "postgres" {
				ph = "$1 AND id < $2"
			}
			plain := func(model any, args []any) []int {
				stmt := &gorm.Statement{DB: db}
				require.NoError(t, stmt.Parse(model))
				rs, err := sqlDB.Query("SELECT n FROM "+stmt.Schema.Table+" WHERE id >= "+ph+" ORDER BY n", args...)
				require.NoError(t, err)
				defer rs.Close()
				var got []int
				for rs.Next() {
					var n int
					require.NoError(t, rs.Scan(&n))
					got = append(got, n)
				}
				require.NoError(t, rs.Err())
				return got
			}
			assert.Equal(t, want, plain(&rangeSnow{}, sr.Args()), "Snowflake SQL args")
			assert.Equal(t, want, plain(&rangeOID{}, or.Args()), "ObjectID SQL args")
			assert.Equal(t, want, plain(&rangeHex{}, or.HexArgs()), "hex ObjectID SQL args")
			assert.Equal(t, want, plain(&rangeUUID{}, ur.Args()), "UUID SQL args")
		})
	}
}

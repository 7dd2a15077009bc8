package gormplugin_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/segment"
	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/mongocompat"
	"github.com/idkit-go/idkit/publicid"
	"github.com/idkit-go/idkit/types"
)

// mongoDoc is a document whose zero Snowflake _id mongocompat fills.
type mongoDoc struct {
	ID types.Snowflake `bson:"_id"`
}

// The sentinels of packages generator and types that gormplugin and
// mongocompat return (named once, there): an error from a real failing
// call of each package matches that one name, and segment's and
// publicid's names for ErrInvalidConfig, which are the same value.
func TestSentinelsMatchAcrossPackages(t *testing.T) {
	t.Run("ErrInvalidConfig", func(t *testing.T) {
		useErr := sqliteDB(t).Use(gormplugin.New(gormplugin.WithNode(1 << 10)))
		_, genErr := generator.NewSnowflake(1, generator.WithClock(nil))
		for name, err := range map[string]error{"db.Use": useErr, "generator.NewSnowflake": genErr} {
			require.Error(t, err, name)
			for _, target := range []error{generator.ErrInvalidConfig, segment.ErrInvalidConfig, publicid.ErrInvalidConfig} {
				require.ErrorIs(t, err, target, name)
			}
		}
	})

	t.Run("ErrNoSnowflakeGenerator", func(t *testing.T) {
		db := sqliteDB(t)
		require.NoError(t, db.Use(gormplugin.New()))
		gormErr := db.Session(&gorm.Session{DryRun: true}).Create(&Order{}).Error
		_, _, mongoErr := mongocompat.NewFiller().FillID(&mongoDoc{})
		for name, err := range map[string]error{"gormplugin create": gormErr, "mongocompat FillID": mongoErr} {
			require.Error(t, err, name)
			for _, target := range []error{generator.ErrNoSnowflakeGenerator} {
				require.ErrorIs(t, err, target, name)
			}
		}
	})

	t.Run("ErrNotAddressable", func(t *testing.T) {
		db := sqliteDB(t)
		require.NoError(t, db.Use(gormplugin.New(gormplugin.WithNode(1))))
		gormErr := db.Session(&gorm.Session{DryRun: true}).Create([1]Event{}).Error
		filler := mongocompat.NewFiller(mongocompat.WithSnowflake(must(generator.NewSnowflake(1))))
		_, _, mongoErr := filler.FillID(mongoDoc{})
		for name, err := range map[string]error{"gormplugin create": gormErr, "mongocompat FillID": mongoErr} {
			require.Error(t, err, name)
			for _, target := range []error{types.ErrNotAddressable} {
				require.ErrorIs(t, err, target, name)
			}
		}
		require.False(t, errors.Is(gormErr, generator.ErrNoSnowflakeGenerator))
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

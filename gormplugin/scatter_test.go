package gormplugin_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// The models of the scatter tests: one per form and ID kind.
type (
	ScatterOrder struct {
		ID   types.Snowflake `idkit:"scatter=reversed"`
		Note string          `gorm:"size:32"`
	}
	ScatterShard struct {
		ID   int64  `gorm:"autoIncrement:false" idkit:"snowflake,scatter=shard:4"`
		Note string `gorm:"size:32"`
	}
	ScatterDoc struct {
		ID   types.ObjectID `idkit:"objectid,scatter=shard:8"`
		Note string         `gorm:"size:32"`
	}
	ScatterEvent struct {
		ID   types.UUID `idkit:"uuid,scatter=shard:8"`
		Note string     `gorm:"size:32"`
	}
)

// TestScatterTags creates rows of each scatter model through the plugin on
// every database, reads the stored keys back with plain SQL, and checks
// that each is the key of an ID made now: the form turns it back into an
// ID whose time is the time of the insert, and a lookup by the key finds
// the row.
func TestScatterTags(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &ScatterOrder{}, &ScatterShard{}, &ScatterDoc{}, &ScatterEvent{})
		before := time.Now().Add(-time.Second)
		layout := generator.Twitter()

		orders := []ScatterOrder{{Note: "a"}, {Note: "b"}, {Note: "c"}}
		require.NoError(t, db.CreateInBatches(&orders, 2).Error)
		for _, key := range storedKeys[types.Snowflake](t, db, &ScatterOrder{}) {
			id, err := types.BitReversed().OrderedSnowflake(key)
			require.NoError(t, err)
			p, err := layout.Decompose(id)
			require.NoError(t, err)
			require.False(t, p.Time.Before(before) || p.Time.After(time.Now()), "key %d decodes to %v", key, p.Time)
			require.Equal(t, int64(1), p.Node)
			var row ScatterOrder
			require.NoError(t, db.First(&row, key).Error)
		}

		shards := []ScatterShard{{Note: "a"}, {Note: "b"}}
		require.NoError(t, db.Create(&shards).Error)
		for _, key := range storedKeys[int64](t, db, &ScatterShard{}) {
			id, err := types.ShardBits(4).OrderedSnowflake(types.Snowflake(key))
			require.NoError(t, err)
			p, err := layout.Decompose(id)
			require.NoError(t, err)
			require.False(t, p.Time.Before(before), "key %d decodes to %v", key, p.Time)
		}

		require.NoError(t, db.Create(&ScatterDoc{Note: "a"}).Error)
		for _, key := range storedKeys[types.ObjectID](t, db, &ScatterDoc{}) {
			id, err := types.ShardBits(8).OrderedObjectID(key)
			require.NoError(t, err)
			require.False(t, id.Timestamp().Before(before.Truncate(time.Second)), "key %s decodes to %v", key, id.Timestamp())
			require.False(t, id.Timestamp().After(time.Now()))
		}

		ev := ScatterEvent{Note: "a"}
		require.NoError(t, db.Create(&ev).Error)
		keys := storedKeys[types.UUID](t, db, &ScatterEvent{})
		require.Equal(t, []types.UUID{ev.ID}, keys)
		require.True(t, ev.ID.Time().IsZero(), "a UUID key has no version 7 time")
		id, err := types.ShardBits(8).OrderedUUID(ev.ID)
		require.NoError(t, err)
		require.False(t, id.Time().Before(before))

		// A key already set is kept as given.
		set := ScatterOrder{ID: 12345, Note: "set"}
		require.NoError(t, db.Create(&set).Error)
		require.Equal(t, types.Snowflake(12345), set.ID)
	})
}

// storedKeys reads the id column of model's table with plain SQL.
func storedKeys[T any](t *testing.T, db *gorm.DB, model any) []T {
	t.Helper()
	var keys []T
	rows, err := db.Raw("SELECT id FROM " + tableOf(t, db, model)).Rows()
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var k T
		require.NoError(t, rows.Scan(&k))
		keys = append(keys, k)
	}
	require.NoError(t, rows.Err())
	require.NotEmpty(t, keys)
	return keys
}

func TestScatterTagRefused(t *testing.T) {
	type badCount struct {
		ID types.Snowflake `idkit:"scatter=shard:99"`
	}
	type badWord struct {
		ID types.Snowflake `idkit:"snowflake,shard=4"`
	}
	type reversedObjectID struct {
		ID types.ObjectID `idkit:"scatter=reversed"`
	}
	type notAKey struct {
		ID   types.Snowflake
		Code string `idkit:"scatter=shard:4"`
	}
	narrow, err := generator.NewLayout(generator.LayoutSpec{TimeBits: 40, NodeBits: 1, SequenceBits: 12,
		Unit: time.Millisecond, Epoch: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	scattered, err := generator.NewSnowflake(1, generator.WithForm(types.BitReversed()))
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		plugin *gormplugin.Plugin
		model  any
		want   error
	}{
		{"shard count", gormplugin.New(gormplugin.WithNode(1)), &badCount{}, generator.ErrInvalidConfig},
		{"shard count", gormplugin.New(gormplugin.WithNode(1)), &badCount{}, gormplugin.ErrUnsupportedField},
		{"unknown word", gormplugin.New(gormplugin.WithNode(1)), &badWord{}, gormplugin.ErrUnsupportedField},
		{"reversed ObjectID", gormplugin.New(), &reversedObjectID{}, generator.ErrInvalidConfig},
		{"not a key", gormplugin.New(gormplugin.WithNode(1)), &notAKey{}, gormplugin.ErrUnsupportedField},
		{"narrow layout", gormplugin.New(gormplugin.WithNode(1, generator.WithLayout(narrow))), &ScatterOrder{}, generator.ErrInvalidConfig},
		{"generator form", gormplugin.New(gormplugin.WithSnowflake(scattered)), &ScatterOrder{}, generator.ErrInvalidConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t, dialects[0], tc.plugin)
			migrate(t, db, tc.model)
			err := db.Create(tc.model).Error
			if !errors.Is(err, tc.want) {
				t.Fatalf("Create: %v; want %v", err, tc.want)
			}
			var n int64
			require.NoError(t, db.Model(tc.model).Count(&n).Error)
			require.Zero(t, n, "nothing is stored")
		})
	}
}

package otherkeys_test

import (
	"context"
	"testing"

	"github.com/oklog/ulid/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/internal/testgorm"
)

// Event is keyed by a ULID, stored as its 16 bytes.
type Event struct {
	ID   ulid.ULID `gorm:"size:16"`
	Kind string    `gorm:"size:64;uniqueIndex"`
	N    int
}

// PtrEvent is keyed by a pointer to a ULID.
type PtrEvent struct {
	ID   *ulid.ULID `gorm:"size:16"`
	Kind string
}

func newULID() (ulid.ULID, error) { return ulid.Make(), nil }

// ulidDBs runs f on SQLite, PostgreSQL and MariaDB with a plugin that
// fills ULID keys.
func ulidDBs(t *testing.T, f func(t *testing.T, db *gorm.DB)) {
	for _, d := range testgorm.Dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := testgorm.Open(t, d)
			require.NoError(t, db.Use(gormplugin.New(gormplugin.WithKeyFunc(newULID))))
			require.NoError(t, db.AutoMigrate(&Event{}, &PtrEvent{}))
			f(t, db)
		})
	}
}

// stored returns the stored events' keys by kind.
func stored(t *testing.T, db *gorm.DB) map[string]ulid.ULID {
	t.Helper()
	var rows []Event
	require.NoError(t, db.Find(&rows).Error)
	m := map[string]ulid.ULID{}
	for _, r := range rows {
		m[r.Kind] = r.ID
	}
	return m
}

func TestULIDCreatePaths(t *testing.T) {
	ulidDBs(t, func(t *testing.T, db *gorm.DB) {
		one := Event{Kind: "one"}
		require.NoError(t, db.Create(&one).Error)
		many := []*Event{{Kind: "b1"}, {Kind: "b2"}, {Kind: "b3"}}
		require.NoError(t, db.CreateInBatches(many, 2).Error)
		g := Event{Kind: "generic"}
		require.NoError(t, gorm.G[Event](db).Create(context.Background(), &g))
		set := Event{ID: ulid.Make(), Kind: "set"}
		keep := set.ID
		require.NoError(t, db.Create(&set).Error)
		assert.Equal(t, keep, set.ID, "a set key is never replaced")
		p := PtrEvent{Kind: "ptr"}
		require.NoError(t, db.Create(&p).Error)
		require.NotNil(t, p.ID)

		want := map[string]ulid.ULID{"one": one.ID, "generic": g.ID, "set": keep}
		for _, r := range many {
			want[r.Kind] = r.ID
		}
		for kind, id := range want {
			assert.False(t, id.IsZero(), kind)
		}
		assert.Equal(t, want, stored(t, db))
		var gotPtr PtrEvent
		require.NoError(t, db.First(&gotPtr, "kind = ?", "ptr").Error)
		require.NotNil(t, gotPtr.ID)
		assert.Equal(t, *p.ID, *gotPtr.ID)
	})
}

// TestULIDLookups: a ULID's SQL value is 16 bytes, which GORM would take
// for 16 one-byte keys; the plugin selects the row with that key.
func TestULIDLookups(t *testing.T) {
	ulidDBs(t, func(t *testing.T, db *gorm.DB) {
		rows := []Event{{Kind: "a"}, {Kind: "b"}}
		require.NoError(t, db.Create(&rows).Error)
		var got Event
		require.NoError(t, db.First(&got, rows[1].ID).Error)
		assert.Equal(t, "b", got.Kind)
		assert.Equal(t, rows[1].ID, got.ID)
		var n int64
		require.NoError(t, db.Model(&Event{}).Where(rows[0].ID).Count(&n).Error)
		assert.EqualValues(t, 1, n)
		res := db.Delete(&Event{}, rows[0].ID)
		require.NoError(t, res.Error)
		assert.EqualValues(t, 1, res.RowsAffected)
		assert.Equal(t, map[string]ulid.ULID{"b": rows[1].ID}, stored(t, db))
	})
}

// TestULIDUpserts: after an upsert each struct holds its stored row's key.
func TestULIDUpserts(t *testing.T) {
	ulidDBs(t, func(t *testing.T, db *gorm.DB) {
		old := Event{Kind: "a", N: 1}
		require.NoError(t, db.Create(&old).Error)
		oc := clause.OnConflict{Columns: []clause.Column{{Name: "kind"}}, UpdateAll: true}
		single := Event{Kind: "a", N: 2}
		require.NoError(t, db.Clauses(oc).Create(&single).Error)
		assert.Equal(t, old.ID, single.ID)
		batch := []Event{{Kind: "a", N: 3}, {Kind: "b", N: 4}}
		require.NoError(t, db.Clauses(oc).Create(&batch).Error)
		assert.Equal(t, old.ID, batch[0].ID)

		var rows []Event
		require.NoError(t, db.Order("kind").Find(&rows).Error)
		require.Len(t, rows, 2)
		assert.Equal(t, Event{ID: old.ID, Kind: "a", N: 3}, rows[0])
		assert.Equal(t, Event{ID: batch[1].ID, Kind: "b", N: 4}, rows[1])
		assert.False(t, rows[1].ID.IsZero())
	})
}

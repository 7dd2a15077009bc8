package gormplugin_test

import (
	"database/sql/driver"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// TwoKeys has two Snowflake fields the plugin fills, the second an
// unsigned one.
type TwoKeys struct {
	ID   types.Snowflake
	Seq  uint64 `idkit:"snowflake"`
	Name string
}

// TestFillInPlace covers the fill of slices and arrays in place: keys
// reached through an embedded struct, two keys per row, keys already set
// among zero ones, slices of pointers, and WithKeyFunc keys; every row is
// read back.
func TestFillInPlace(t *testing.T) {
	db := openDB(t, dialects[0], gormplugin.New(gormplugin.WithNode(1),
		gormplugin.WithKeyFunc(func() (countedKey, error) { return newCountedKey(), nil })))
	migrate(t, db, &Embedded{}, &TwoKeys{}, &Event{}, &CountedDoc{})

	t.Run("embedded", func(t *testing.T) {
		es := []Embedded{{Name: "a"}, {Base: Base{ID: 77}, Name: "b"}, {Name: "c"}}
		require.NoError(t, db.Create(&es).Error)
		assert.Equal(t, types.Snowflake(77), es[1].ID)
		assert.NotZero(t, es[0].ID)
		assert.Less(t, es[0].ID, es[2].ID)
		for _, e := range es {
			var got Embedded
			require.NoError(t, db.First(&got, "id = ?", e.ID).Error)
			assert.Equal(t, e.Name, got.Name)
		}
	})
	t.Run("two keys", func(t *testing.T) {
		ks := [3]TwoKeys{{Name: "a"}, {Name: "b", Seq: 5}, {Name: "c"}}
		require.NoError(t, db.Create(&ks).Error)
		assert.Equal(t, uint64(5), ks[1].Seq)
		for _, k := range ks {
			require.NotZero(t, k.ID)
			require.NotZero(t, k.Seq)
			var got TwoKeys
			require.NoError(t, db.First(&got, "id = ?", k.ID).Error)
			assert.Equal(t, k, got)
		}
	})
	t.Run("pointers", func(t *testing.T) {
		es := []*Event{{Name: "p1"}, {Name: "p2"}}
		require.NoError(t, db.Create(es).Error)
		assert.NotEqual(t, es[0].ID, es[1].ID)
		for _, e := range es {
			var got Event
			require.NoError(t, db.First(&got, "id = ?", e.ID).Error)
			assert.Equal(t, e.Name, got.Name)
		}
	})
	t.Run("key func", func(t *testing.T) {
		set := newCountedKey()
		ds := []CountedDoc{{Name: "a"}, {ID: set, Name: "b"}}
		require.NoError(t, db.Create(&ds).Error)
		assert.Equal(t, set, ds[1].ID)
		assert.False(t, ds[0].ID.IsZero())
		var got CountedDoc
		require.NoError(t, db.First(&got, "name = ?", "a").Error)
		assert.Equal(t, ds[0].ID, got.ID)
	})
}

// countedKey is a key type with an IsZero method on its pointer.
type countedKey [8]byte

var keyCount byte

func newCountedKey() countedKey {
	keyCount++
	return countedKey{7: keyCount}
}

func (k *countedKey) IsZero() bool { return *k == countedKey{} }

func (k countedKey) Value() (driver.Value, error) { return k[:], nil }

func (k *countedKey) Scan(src any) error {
	b, ok := src.([]byte)
	if !ok || len(b) != len(k) {
		return fmt.Errorf("countedKey: cannot scan %T", src)
	}
	copy(k[:], b)
	return nil
}

type CountedDoc struct {
	ID   countedKey `gorm:"type:blob"`
	Name string
}

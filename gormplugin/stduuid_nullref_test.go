//go:build go1.27

package gormplugin_test

import (
	"testing"
	"uuid"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

type stdShelf struct {
	ID    uuid.UUID `gorm:"type:binary(16)"`
	Books []stdBook `gorm:"foreignKey:ShelfID"`
}

type stdBook struct {
	ID      uuid.UUID `gorm:"type:binary(16)"`
	ShelfID uuid.UUID `gorm:"type:binary(16)"` // plain: NULL cannot be held
	Title   string
}

type stdBox struct {
	ID    uuid.UUID  `gorm:"type:binary(16)"`
	Items []stdThing `gorm:"foreignKey:BoxID"`
}

type stdThing struct {
	ID    uuid.UUID  `gorm:"type:binary(16)"`
	BoxID *uuid.UUID `gorm:"type:binary(16)"` // nullable: nil is NULL
	Title string
}

// TestStdUUIDReferenceClear clears has-many associations whose foreign key
// is a plain uuid.UUID (refused with types.ErrNull, the rows keep their
// reference) and a *uuid.UUID (set to NULL, read back as nil).
func TestStdUUIDReferenceClear(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := openDB(t, d, gormplugin.New())
			if d.Name == "postgres" {
				// binary(16) is MariaDB's and SQLite's; PostgreSQL's is uuid.
				for _, m := range []any{&stdShelf{}, &stdBook{}, &stdBox{}, &stdThing{}} {
					stmtTable := tableOf(t, db, m)
					cols := "id uuid PRIMARY KEY, title VARCHAR(64)"
					switch m.(type) {
					case *stdBook:
						cols += ", shelf_id uuid"
					case *stdThing:
						cols += ", box_id uuid"
					}
					if _, ok := m.(*stdShelf); ok {
						cols = "id uuid PRIMARY KEY"
					} else if _, ok := m.(*stdBox); ok {
						cols = "id uuid PRIMARY KEY"
					}
					require.NoError(t, db.Exec("CREATE TABLE "+stmtTable+" ("+cols+")").Error)
				}
			} else {
				migrate(t, db, &stdShelf{}, &stdBook{}, &stdBox{}, &stdThing{})
			}

			shelf := stdShelf{Books: []stdBook{{Title: "a"}, {Title: "b"}}}
			require.NoError(t, db.Create(&shelf).Error)
			err := db.Model(&shelf).Association("Books").Clear()
			require.ErrorIs(t, err, types.ErrNull)
			assert.Contains(t, err.Error(), "uuid.UUID")
			assert.NotContains(t, err.Error(), "types.UUID")
			var n int64
			require.NoError(t, db.Model(&stdBook{}).Where("shelf_id = ?", shelf.ID).Count(&n).Error)
			assert.EqualValues(t, 2, n, "stored references unchanged")

			box := stdBox{Items: []stdThing{{Title: "a"}, {Title: "b"}}}
			require.NoError(t, db.Create(&box).Error)
			require.NoError(t, db.Model(&box).Association("Items").Clear())
			require.NoError(t, db.Model(&stdThing{}).Where("box_id IS NULL").Count(&n).Error)
			assert.EqualValues(t, 2, n, "NULL stored")
			var things []stdThing
			require.NoError(t, db.Find(&things).Error)
			require.Len(t, things, 2)
			for _, th := range things {
				assert.Nil(t, th.BoxID)
			}
		})
	}
}

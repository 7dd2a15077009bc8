//go:build go1.27

package gormplugin_test

import (
	"strings"
	"testing"
	"uuid"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// TestStdUUIDStringKeys looks rows keyed by Go's uuid.UUID up by their
// canonical strings, in lower and upper case, with every inline-key form.
func TestStdUUIDStringKeys(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := openDB(t, d, gormplugin.New())
			stdUUIDTables(t, db, d.Name)
			rows := []stdItem{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}
			require.NoError(t, db.Create(&rows).Error)
			for _, c := range []struct {
				name string
				key  func(uuid.UUID) string
			}{{"lower", uuid.UUID.String}, {"upper", func(u uuid.UUID) string { return strings.ToUpper(u.String()) }}} {
				t.Run(c.name, func(t *testing.T) {
					var got stdItem
					require.NoError(t, db.First(&got, c.key(rows[0].ID)).Error, "First")
					assert.Equal(t, rows[0].ID, got.ID)
					got = stdItem{}
					require.NoError(t, db.Take(&got, c.key(rows[1].ID)).Error, "Take")
					assert.Equal(t, rows[1].ID, got.ID)
					got = stdItem{}
					require.NoError(t, db.Last(&got, c.key(rows[2].ID)).Error, "Last")
					assert.Equal(t, rows[2].ID, got.ID)
					var some []stdItem
					require.NoError(t, db.Find(&some, c.key(rows[3].ID)).Error, "Find")
					require.Len(t, some, 1)
					assert.Equal(t, rows[3].ID, some[0].ID)
				})
			}
			// Other strings stay SQL conditions.
			var got stdItem
			require.NoError(t, db.First(&got, "name = 'b'").Error)
			assert.Equal(t, rows[1].ID, got.ID)
			// A string that is not a UUID and not SQL stays an SQL error.
			require.Error(t, db.First(&got, "not-a-uuid").Error)

			res := db.Delete(&stdItem{}, rows[0].ID.String())
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			res = db.Delete(&stdItem{}, strings.ToUpper(rows[1].ID.String()))
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			var left []stdItem
			require.NoError(t, db.Order("name").Find(&left).Error)
			require.Len(t, left, 2)
			assert.Equal(t, rows[2].ID, left[0].ID)
			assert.Equal(t, rows[3].ID, left[1].ID)
		})
	}
}

// TestStdUUIDZeroKey looks a uuid.UUID-keyed model up by the nil UUID, in
// every form: the error is the one a zero types.UUID key gets, and nothing
// is deleted.
func TestStdUUIDZeroKey(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := openDB(t, d, gormplugin.New())
			stdUUIDTables(t, db, d.Name)
			plainUUIDTable(t, db, db.Dialector.Name(), &uuidKeyed{})
			require.NoError(t, db.Create(&stdItem{Name: "a"}).Error)

			var ref uuidKeyed
			want := db.First(&ref, types.UUID{}).Error
			require.ErrorIs(t, want, types.ErrZeroID)
			want2 := strings.ReplaceAll(want.Error(), "uuidKeyed", "stdItem")

			var got stdItem
			for name, err := range map[string]error{
				"First":        db.First(&got, uuid.UUID{}).Error,
				"Take":         db.Take(&got, uuid.Nil()).Error,
				"Find":         db.Find(&[]stdItem{}, uuid.Nil()).Error,
				"First string": db.First(&got, uuid.Nil().String()).Error,
				"Delete":       db.Delete(&stdItem{}, uuid.Nil()).Error,
			} {
				require.ErrorIs(t, err, types.ErrZeroID, name)
				assert.Equal(t, want2, err.Error(), name)
				assert.NotContains(t, err.Error(), "types.UUID", name)
			}
			var n int64
			require.NoError(t, db.Model(&stdItem{}).Count(&n).Error)
			assert.EqualValues(t, 1, n)
		})
	}
}

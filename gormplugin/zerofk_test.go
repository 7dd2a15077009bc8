package gormplugin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/types"
)

// Reading refers to other rows by key without a foreign-key constraint, so
// that only the ID types decide what may be written.
type Reading struct {
	ID       types.Snowflake
	SensorID types.Snowflake     // required reference
	DeviceID types.ObjectID      // required reference
	OwnerID  types.NullSnowflake // optional reference: NULL when unset
	Value    int
}

// TestZeroForeignKey checks that a zero non-null reference is never
// written (a zero Snowflake or ObjectID is not a key: its Value is an error
// wrapping types.ErrZeroID) and that an unset Null form stores NULL.
//
// The rejection needs types.ErrZeroID in package types (decided for this
// release); before it, a zero reference is stored as 0 and the first two
// subtests fail.
func TestZeroForeignKey(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Reading{})
		count := func() int64 {
			var n int64
			require.NoError(t, db.Model(&Reading{}).Count(&n).Error)
			return n
		}
		t.Run("zero Snowflake reference rejected", func(t *testing.T) {
			err := db.Create(&Reading{DeviceID: types.NewObjectID(), Value: 1}).Error
			assert.Error(t, err)
			assert.Zero(t, count(), "rows stored")
		})
		t.Run("zero ObjectID reference rejected", func(t *testing.T) {
			err := db.Create(&Reading{SensorID: 5, Value: 2}).Error
			assert.Error(t, err)
			assert.Zero(t, count(), "rows stored")
		})
		t.Run("unset NullSnowflake stores NULL", func(t *testing.T) {
			r := Reading{SensorID: 5, DeviceID: types.NewObjectID(), Value: 3}
			require.NoError(t, db.Create(&r).Error)
			var nulls int64
			require.NoError(t, db.Model(&Reading{}).Where("owner_id IS NULL AND id = ?", r.ID).Count(&nulls).Error)
			assert.EqualValues(t, 1, nulls)
			var got Reading
			require.NoError(t, db.First(&got, r.ID).Error)
			assert.False(t, got.OwnerID.Valid)
			assert.Equal(t, r.DeviceID, got.DeviceID)
		})
	})
}

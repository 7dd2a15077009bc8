package gormplugin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/types"
)

// TestREADMEModelSurvivesAssociations runs the README's Customer and
// Purchase through GORM's association Delete and Clear, which set
// purchases.customer_id to NULL, then reads the purchases back and saves
// them: the nullable CustomerID reads NULL as unset and saves it as NULL,
// and Append sets it again.
func TestREADMEModelSurvivesAssociations(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Customer{}, &Purchase{})
		ann := Customer{Email: "ann@example.com", Name: "Ann", Purchases: []Purchase{{Item: "book"}, {Item: "pen"}, {Item: "lamp"}}}
		require.NoError(t, db.Create(&ann).Error)
		var ids []types.ObjectID // Delete and Clear also drop rows from ann.Purchases
		for _, p := range ann.Purchases {
			require.Equal(t, types.NullSnowflake{ID: ann.ID, Valid: true}, p.CustomerID, "GORM sets the reference from the customer's key")
			ids = append(ids, p.ID)
		}
		orphans := func() int64 {
			var n int64
			require.NoError(t, db.Model(&Purchase{}).Where("customer_id IS NULL").Count(&n).Error)
			return n
		}
		saveAgain := func(id types.ObjectID, item string) {
			var p Purchase
			require.NoError(t, db.First(&p, id).Error)
			assert.False(t, p.CustomerID.Valid, "NULL read back as unset")
			p.Item = item
			require.NoError(t, db.Save(&p).Error)
			var got Purchase
			require.NoError(t, db.First(&got, id).Error)
			assert.Equal(t, item, got.Item)
			assert.False(t, got.CustomerID.Valid)
		}

		require.NoError(t, db.Model(&ann).Association("Purchases").Delete(&ann.Purchases[0]))
		assert.EqualValues(t, 1, orphans())
		saveAgain(ids[0], "novel")

		require.NoError(t, db.Model(&ann).Association("Purchases").Clear())
		assert.EqualValues(t, 3, orphans())
		saveAgain(ids[1], "pencil")
		saveAgain(ids[2], "torch")

		var p Purchase
		require.NoError(t, db.First(&p, ids[2]).Error)
		require.NoError(t, db.Model(&ann).Association("Purchases").Append(&p))
		var got Purchase
		require.NoError(t, db.First(&got, p.ID).Error)
		assert.Equal(t, types.NullSnowflake{ID: ann.ID, Valid: true}, got.CustomerID, "Append sets the reference again")
		assert.EqualValues(t, 2, orphans())
		assert.EqualValues(t, 1, db.Model(&ann).Association("Purchases").Count())
	})
}

// strictCustomer and strictPurchase are the README's models as they were,
// with a non-null reference, to pin down the trap the Null form avoids.
type strictCustomer struct {
	ID        types.Snowflake
	Purchases []strictPurchase `gorm:"foreignKey:CustomerID"`
}

type strictPurchase struct {
	ID         types.ObjectID
	CustomerID types.Snowflake
	Item       string
}

// TestNonNullReferenceNotCleared checks that GORM's association Delete,
// Clear and Replace, which set the children's foreign key to NULL, and
// Update to nil, are refused for a
// non-null Snowflake reference with an error wrapping types.ErrNull, and
// that the stored rows keep their reference: GORM scans every column
// through a pointer, so a NULL written there would read back as 0 without
// an error. docs/gorm-errors.md describes this.
func TestNonNullReferenceNotCleared(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &strictCustomer{}, &strictPurchase{})
		c := strictCustomer{Purchases: []strictPurchase{{Item: "book"}, {Item: "pen"}}}
		require.NoError(t, db.Create(&c).Error)
		first := c.Purchases[0] // Clear empties c.Purchases, even when refused

		err := db.Model(&c).Association("Purchases").Clear()
		require.ErrorIs(t, err, types.ErrNull)
		assert.Contains(t, err.Error(), "strictPurchase.CustomerID")
		assert.Contains(t, err.Error(), "types.NullSnowflake")
		err = db.Model(&c).Association("Purchases").Delete(&first)
		require.ErrorIs(t, err, types.ErrNull)
		err = db.Model(&strictPurchase{}).Where("item = ?", "pen").Update("customer_id", nil).Error
		require.ErrorIs(t, err, types.ErrNull, "Update to nil")

		var n int64
		require.NoError(t, db.Model(&strictPurchase{}).Where("customer_id = ?", c.ID).Count(&n).Error)
		assert.EqualValues(t, 2, n, "stored references unchanged")
		require.NoError(t, db.Model(&strictPurchase{}).Where("customer_id IS NULL").Count(&n).Error)
		assert.Zero(t, n)

		// Replace saves the new children, then is refused on the old ones,
		// which keep their reference.
		err = db.Model(&c).Association("Purchases").Replace(&strictPurchase{Item: "lamp"})
		require.ErrorIs(t, err, types.ErrNull, "Replace")
		require.NoError(t, db.Model(&strictPurchase{}).Where("customer_id = ?", c.ID).Count(&n).Error)
		assert.EqualValues(t, 3, n, "old references kept, the new child saved")

		// Deleting the children instead is allowed.
		require.NoError(t, db.Model(&c).Unscoped().Association("Purchases").Clear())
		require.NoError(t, db.Model(&strictPurchase{}).Count(&n).Error)
		assert.Zero(t, n, "Unscoped Clear deletes the rows")
	})
}

package gormplugin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"
)

// The package doc: a tagged [12]byte field is filled, but database/sql
// cannot store a Go array, so the create fails on every driver and stores
// nothing.
func TestClaimByteArrayFieldFilledButNotStorable(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &ArrayKey{})
		a := &ArrayKey{}
		require.Error(t, db.Create(a).Error)
		assert.NotEqual(t, [12]byte{}, a.Arr, "the field is filled before the INSERT")
		var n int64
		require.NoError(t, db.Model(&ArrayKey{}).Count(&n).Error)
		assert.Zero(t, n)
	})
}

package gormplugin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/gormplugin"
)

// The package doc: a tagged plain [12]byte field cannot be stored through
// database/sql, so the create fails with ErrUnsupportedField on every
// database and stores nothing.
func TestClaimByteArrayFieldRejected(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &ArrayKey{})
		a := &ArrayKey{}
		require.ErrorIs(t, db.Create(a).Error, gormplugin.ErrUnsupportedField)
		assert.Equal(t, [12]byte{}, a.Arr, "nothing is filled")
		var n int64
		require.NoError(t, db.Model(&ArrayKey{}).Count(&n).Error)
		assert.Zero(t, n)
	})
}

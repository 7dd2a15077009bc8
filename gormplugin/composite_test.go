package gormplugin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// CompositeDoc has a composite key whose ObjectID part is not tagged, so
// the plugin leaves it to the caller.
type CompositeDoc struct {
	Tenant types.Snowflake `gorm:"primaryKey" idkit:"snowflake"`
	ID     types.ObjectID  `gorm:"primaryKey"`
	Name   string
}

// TestCompositeUntaggedPart checks that a zero untagged idkit part of a
// composite key fails the create with ErrUntaggedKey, naming the field and
// the tag, before anything is written; that set parts are stored as given;
// and that a batch with one zero part stores none of its rows.
func TestCompositeUntaggedPart(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Composite{}, &CompositeDoc{})
		count := func(model any) int64 {
			var n int64
			require.NoError(t, db.Model(model).Count(&n).Error)
			return n
		}

		err := db.Create(&Composite{Tenant: 1, Name: "x"}).Error
		require.ErrorIs(t, err, gormplugin.ErrUntaggedKey)
		assert.Contains(t, err.Error(), `Composite.Code`)
		assert.Contains(t, err.Error(), `idkit:"snowflake"`)

		err = db.Create(&CompositeDoc{Name: "x"}).Error
		require.ErrorIs(t, err, gormplugin.ErrUntaggedKey)
		assert.Contains(t, err.Error(), `CompositeDoc.ID`)
		assert.Contains(t, err.Error(), `idkit:"objectid"`)

		id := types.NewObjectID()
		err = db.Create(&[]CompositeDoc{{ID: id, Name: "a"}, {Name: "b"}}).Error
		require.ErrorIs(t, err, gormplugin.ErrUntaggedKey)
		assert.Zero(t, count(&CompositeDoc{}), "rows stored")
		assert.Zero(t, count(&Composite{}), "rows stored")

		d := CompositeDoc{ID: id, Name: "a"}
		require.NoError(t, db.Create(&d).Error)
		assert.NotZero(t, d.Tenant, "tagged part filled")
		var got CompositeDoc
		require.NoError(t, db.Where("tenant = ? AND id = ?", d.Tenant, id).First(&got).Error)
		assert.Equal(t, d, got)
	})
}

package gormplugin_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/types"
)

// ZeroRefPet is a model with a plain reference a user forgot to set.
type ZeroRefPet struct {
	ID    types.ObjectID
	Owner types.Snowflake // required reference to a person
	Name  string
}

// TestZeroReferenceNamesTheField creates a row whose plain reference is
// zero with the plugin installed: the error names the field and its Null
// form, wraps types.ErrZeroID, does not tell the user to install the
// plugin they installed, and nothing is stored.
func TestZeroReferenceNamesTheField(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &ZeroRefPet{})
		for _, create := range []func() error{
			func() error { return db.Create(&ZeroRefPet{Name: "rex"}).Error },
			func() error { return db.Create(&[]ZeroRefPet{{Owner: 7, Name: "a"}, {Name: "b"}}).Error },
		} {
			err := create()
			require.Error(t, err)
			assert.True(t, errors.Is(err, types.ErrZeroID), "%v", err)
			assert.Contains(t, err.Error(), "ZeroRefPet.Owner is a zero types.Snowflake")
			assert.Contains(t, err.Error(), "types.NullSnowflake")
			assert.False(t, strings.Contains(err.Error(), "gormplugin.New"), "tells the user to install the plugin: %v", err)
		}
		var n int64
		require.NoError(t, db.Model(&ZeroRefPet{}).Count(&n).Error)
		assert.Zero(t, n, "rows stored")
		pet := ZeroRefPet{Owner: 7, Name: "rex"}
		require.NoError(t, db.Create(&pet).Error)
		var got ZeroRefPet
		require.NoError(t, db.First(&got, pet.ID).Error)
		assert.Equal(t, types.Snowflake(7), got.Owner)
	})
}

package otherkeys_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/internal/testgorm"
)

// TestGoogleUUIDInlineKey checks docs/gorm-other-keys.md on lookups of a
// model keyed by google/uuid's UUID in a text column: the uuid.UUID inline
// is one key (its SQL value is its text), its string inline is GORM's SQL,
// and "id = ?" with the string finds the row.
func TestGoogleUUIDInlineKey(t *testing.T) {
	for _, d := range testgorm.Dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := testgorm.Open(t, d)
			require.NoError(t, db.Use(gormplugin.New(gormplugin.WithKeyFunc(uuid.NewV7))))
			require.NoError(t, db.AutoMigrate(&Subscriber{}))
			u := Subscriber{Email: "ada@example.com", Name: "Ada"}
			require.NoError(t, db.Create(&u).Error)
			var text string
			require.NoError(t, db.Model(&Subscriber{}).Select("id").Row().Scan(&text))
			assert.Equal(t, u.ID.String(), text, "stored as text")

			var got Subscriber
			require.NoError(t, db.First(&got, u.ID).Error, "uuid.UUID inline")
			assert.Equal(t, u, got)
			assert.Error(t, db.First(&Subscriber{}, u.ID.String()).Error, "its string inline is SQL")
			got = Subscriber{}
			require.NoError(t, db.First(&got, "id = ?", u.ID.String()).Error)
			assert.Equal(t, u, got)
		})
	}
}

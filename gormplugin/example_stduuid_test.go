//go:build go1.27

package gormplugin_test

import (
	"database/sql"
	"testing"
	"uuid"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/gormplugin"
)

// Item is docs/gorm.md's model keyed by Go's uuid.UUID.
type Item struct {
	ID    uuid.UUID           `gorm:"type:uuid"` // the tag for AutoMigrate on PostgreSQL; see below
	Owner *uuid.UUID          // nil is NULL
	Batch sql.Null[uuid.UUID] // Valid: false is NULL
	Name  string
}

// TestStdUUIDDocSnippet runs docs/gorm.md's uuid.UUID snippet on
// PostgreSQL, the database its tag is for. (The snippet's Exec names a
// table "items"; here the model's table has the test's prefix, so only
// the other statements are checked.)
func TestStdUUIDDocSnippet(t *testing.T) {
	db := openDB(t, dialects[1], nil)
	require.NoError(t, db.Use(gormplugin.New()))
	require.NoError(t, db.AutoMigrate(&Item{}))
	var (
		item  Item
		items []Item
		owner = uuid.NewV7()
	)
	item.Owner = &owner
	db.Create(&item)
	require.NotEqual(t, uuid.Nil(), item.ID)
	id := item.ID
	a, b := id, uuid.NewV7()
	db.First(&item, id)
	db.Find(&items, []uuid.UUID{a, b})
	require.Len(t, items, 1)
	items = nil
	db.Where("owner = ?", owner).Find(&items)
	require.Len(t, items, 1)
	db.Exec("UPDATE items SET name = ? WHERE id = ?", "x", id)
}

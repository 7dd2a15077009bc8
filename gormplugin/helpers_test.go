package gormplugin_test

import (
	"testing"

	"gorm.io/gorm"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/internal/testgorm"
)

// dialect is one database the suite runs on.
type dialect = testgorm.Dialect

var dialects = testgorm.Dialects

// openDB opens d through testgorm.Open (unique table prefix, tables dropped
// when t ends) and installs plugin unless it is nil.
func openDB(t testing.TB, d dialect, plugin *gormplugin.Plugin) *gorm.DB {
	t.Helper()
	db := testgorm.Open(t, d)
	if plugin != nil {
		if err := db.Use(plugin); err != nil {
			t.Fatalf("db.Use: %v", err)
		}
	}
	return db
}

// forEachDB runs f on each dialect, with a fresh database handle using a
// new plugin with node 1.
func forEachDB(t *testing.T, f func(t *testing.T, db *gorm.DB)) {
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := openDB(t, d, gormplugin.New(gormplugin.WithNode(1)))
			f(t, db)
		})
	}
}

func migrate(t testing.TB, db *gorm.DB, models ...any) {
	t.Helper()
	if err := db.AutoMigrate(models...); err != nil {
		t.Fatalf("AutoMigrate: %v", err)
	}
}

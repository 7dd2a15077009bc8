package gormplugin_test

import (
	"testing"

	"github.com/idkit-go/idkit/gormplugin"
)

type noUUIDRow struct {
	ID   uint64 `gorm:"primaryKey;autoIncrement"`
	Name string
}

// BenchmarkNoUUID measures a Create and a First of a model with no UUID on
// SQLite with the plugin installed.
func BenchmarkNoUUID(b *testing.B) {
	db := openDB(b, dialects[0], gormplugin.New())
	if err := db.AutoMigrate(&noUUIDRow{}); err != nil {
		b.Fatal(err)
	}
	b.Run("Create", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := db.Create(&noUUIDRow{Name: "x"}).Error; err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("First", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r noUUIDRow
			if err := db.First(&r, 1).Error; err != nil {
				b.Fatal(err)
			}
		}
	})
}

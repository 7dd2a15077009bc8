package gormplugin_test

import (
	"fmt"

	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// Reader is keyed by a types.UUID: no option, no tag.
type Reader struct {
	ID    types.UUID // filled by gormplugin.New(), stored as 16 bytes
	Email string     `gorm:"size:64;uniqueIndex"`
}

// A types.UUID key is filled with a version 7 UUID by the plugin with no
// option, and looked up inline by its value or its canonical string.
func ExampleNew_uuid() {
	db, _ := gorm.Open(sqlite.New(sqlite.Config{DriverName: "sqlite", DSN: "file::memory:"}), &gorm.Config{Logger: logger.Discard})
	db.Use(gormplugin.New())
	db.AutoMigrate(&Reader{})

	m := Reader{Email: "ada@example.com"}
	db.Create(&m) // m.ID is a new version 7 UUID, set before the INSERT
	var byID, byText Reader
	db.First(&byID, m.ID)
	db.First(&byText, m.ID.String())
	fmt.Println(m.ID[6]>>4, byID.Email, byText.ID == m.ID)
	// Output: 7 ada@example.com true
}

package otherkeys_test

import (
	"fmt"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/gormplugin"
)

// Subscriber is keyed by a UUID; the column type is the application's choice
// (uuid on PostgreSQL, char(36) or binary(16) on MySQL).
type Subscriber struct {
	ID    uuid.UUID `gorm:"type:varchar(36)"`
	Email string    `gorm:"size:64;uniqueIndex"`
	Name  string
}

// AuditEvent is keyed by a ULID, stored as its 16 bytes.
type AuditEvent struct {
	ID   ulid.ULID `gorm:"size:16"`
	Kind string
}

// The example of docs/gorm-other-keys.md: keys from google/uuid's NewV7 and
// oklog/ulid's Make.
func Example() {
	db, _ := gorm.Open(sqlite.New(sqlite.Config{DriverName: "sqlite", DSN: "file::memory:"}), &gorm.Config{Logger: logger.Discard})
	err := db.Use(gormplugin.New(
		gormplugin.WithKeyFunc(uuid.NewV7),
		gormplugin.WithKeyFunc(func() (ulid.ULID, error) { return ulid.Make(), nil }),
	))
	if err != nil {
		panic(err)
	}
	db.AutoMigrate(&Subscriber{}, &AuditEvent{})

	u := Subscriber{Email: "ada@example.com", Name: "Ada"}
	db.Create(&u) // u.ID is a new UUIDv7, set before the INSERT
	fmt.Println(u.ID.Version())

	again := Subscriber{Email: "ada@example.com", Name: "Ada L."}
	db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, UpdateAll: true}).Create(&again)
	fmt.Println(again.ID == u.ID) // the key of the row stored

	e := AuditEvent{Kind: "signup"}
	db.Create(&e)
	var got AuditEvent
	db.First(&got, e.ID) // a ULID's SQL value is bytes: the plugin makes this "id = ?"
	fmt.Println(got.Kind, got.ID == e.ID, e.ID.IsZero())
	// Output:
	// VERSION_7
	// true
	// signup true false
}

package gormplugin_test

import (
	"crypto/rand"
	"database/sql/driver"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/google/uuid"
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

// EventKey is an application's own key type: 16 bytes, the first six the
// creation time in Unix milliseconds (big-endian, so keys sort by time), the
// other ten random. Its SQL value is its 16 bytes.
type EventKey [16]byte

// NewEventKey returns a new EventKey.
func NewEventKey() (EventKey, error) {
	var k EventKey
	binary.BigEndian.PutUint64(k[:8], uint64(time.Now().UnixMilli())<<16)
	_, err := rand.Read(k[6:])
	return k, err
}

// IsZero reports whether k is the zero key.
func (k EventKey) IsZero() bool { return k == EventKey{} }

// Value returns k's 16 bytes.
func (k EventKey) Value() (driver.Value, error) { return k[:], nil }

// Scan reads k from 16 bytes.
func (k *EventKey) Scan(src any) error {
	b, ok := src.([]byte)
	if !ok || len(b) != len(k) {
		return fmt.Errorf("EventKey: cannot scan %T of %d bytes", src, len(b))
	}
	copy(k[:], b)
	return nil
}

// AuditEvent is keyed by an EventKey, stored as its 16 bytes.
type AuditEvent struct {
	ID   EventKey `gorm:"size:16"`
	Kind string
}

// Keys of any type come from a function given to WithKeyFunc: here
// google/uuid's NewV7 and the application's own NewEventKey. (The module
// github.com/idkit-go/idkit/tests runs the same with oklog/ulid's ULID.)
func ExampleWithKeyFunc() {
	db, _ := gorm.Open(sqlite.New(sqlite.Config{DriverName: "sqlite", DSN: "file::memory:"}), &gorm.Config{Logger: logger.Discard})
	err := db.Use(gormplugin.New(
		gormplugin.WithKeyFunc(uuid.NewV7),
		gormplugin.WithKeyFunc(NewEventKey),
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
	db.First(&got, e.ID) // an EventKey's SQL value is bytes: the plugin makes this "id = ?"
	fmt.Println(got.Kind)
	// Output:
	// VERSION_7
	// true
	// signup
}

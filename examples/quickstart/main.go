// Command quickstart is idkit's main job in one file: GORM models keyed by
// idkit's ID types, with keys made by the gormplugin before every INSERT, on
// an embedded SQLite database. It needs no setup and no C compiler:
//
//	go run ./examples/quickstart
//
// An Order is keyed by a Snowflake; each of its Events is keyed by an
// ObjectID and points at the order. The program creates both in one
// db.Create, reads them back and prints every key decoded into its parts.
package main

import (
	"fmt"
	"io"
	"log"
	"os"

	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
	_ "modernc.org/sqlite" // pure-Go SQLite, registered as "sqlite"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// Order is keyed by a Snowflake: an int64 that sorts by creation time. No
// tag is needed; AutoMigrate makes a plain BIGINT key with no sequence.
type Order struct {
	ID     types.Snowflake
	Item   string
	Events []Event
}

// Event is keyed by an ObjectID (12 bytes); OrderID is set by GORM from the
// order's key, which the plugin made before the INSERT. It is nullable
// because GORM's association Delete and Clear set it to NULL, which a plain
// Snowflake would read as 0 and refuse to save again.
type Event struct {
	ID      types.ObjectID
	OrderID types.NullSnowflake
	Name    string
}

func main() {
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer) error {
	// One in-memory database, so one connection.
	db, err := gorm.Open(sqlite.New(sqlite.Config{DriverName: "sqlite", DSN: "file::memory:"}),
		&gorm.Config{Logger: logger.Discard})
	if err != nil {
		return err
	}
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	defer sqlDB.Close()
	sqlDB.SetMaxOpenConns(1)

	// Node 1 must be unique among the processes writing at the same time;
	// generator/node hands out node IDs with leases for many machines.
	orders, err := generator.NewSnowflake(1) // Twitter layout
	if err != nil {
		return err
	}
	if err := db.Use(gormplugin.New(gormplugin.WithSnowflake(orders))); err != nil {
		return err
	}
	if err := db.AutoMigrate(&Order{}, &Event{}); err != nil {
		return err
	}

	// Every key, parent and child, is filled before the INSERTs.
	batch := []Order{
		{Item: "book", Events: []Event{{Name: "ordered"}, {Name: "paid"}}},
		{Item: "pen", Events: []Event{{Name: "ordered"}}},
	}
	if err := db.Create(&batch).Error; err != nil {
		return err
	}

	var stored []Order
	if err := db.Preload("Events", func(tx *gorm.DB) *gorm.DB { return tx.Order("id") }).
		Order("id").Find(&stored).Error; err != nil {
		return err
	}
	for _, o := range stored {
		p, err := generator.Twitter().Decompose(o.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "order %s %-4s  Snowflake: time=%s node=%d sequence=%d\n",
			o.ID, o.Item, p.Time.Format("2006-01-02T15:04:05.000Z07:00"), p.Node, p.Sequence)
		for _, e := range o.Events {
			fmt.Fprintf(w, "  event %s %-7s  ObjectID: time=%s process=%x counter=%d order=%s\n",
				e.ID, e.Name, e.ID.Timestamp().Format("2006-01-02T15:04:05Z07:00"),
				e.ID.ProcessUnique(), e.ID.Counter(), e.OrderID.ID)
		}
	}
	return nil
}

package gormplugin_test

import (
	"fmt"
	"os"
	"path/filepath"

	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
	_ "modernc.org/sqlite" // pure-Go SQLite, registered as "sqlite"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// Invoice is keyed by a Snowflake: no tag is needed.
type Invoice struct {
	ID     types.Snowflake
	Amount int
	Lines  []InvoiceLine
}

// InvoiceLine is keyed by an ObjectID; InvoiceID is set by GORM from the
// parent's key.
type InvoiceLine struct {
	ID        types.ObjectID
	InvoiceID types.Snowflake
	Item      string
}

func Example() {
	dir, _ := os.MkdirTemp("", "gormplugin")
	defer os.RemoveAll(dir)
	db, err := gorm.Open(sqlite.New(sqlite.Config{DriverName: "sqlite", DSN: filepath.Join(dir, "example.db")}),
		&gorm.Config{Logger: logger.Discard})
	if err != nil {
		panic(err)
	}
	// The node must be unique among the processes writing at the same time.
	if err := db.Use(gormplugin.New(gormplugin.WithNode(7))); err != nil {
		panic(err)
	}
	if err := db.AutoMigrate(&Invoice{}, &InvoiceLine{}); err != nil {
		panic(err)
	}

	inv := Invoice{Amount: 42, Lines: []InvoiceLine{{Item: "book"}, {Item: "pen"}}}
	if err := db.Create(&inv).Error; err != nil {
		panic(err)
	}
	parts, _ := generator.Twitter().Decompose(inv.ID)
	fmt.Println("invoice key made on node", parts.Node)
	for _, l := range inv.Lines {
		fmt.Println(l.Item, "has a key:", !l.ID.IsZero(), "points at the invoice:", l.InvoiceID == inv.ID)
	}
	// Output:
	// invoice key made on node 7
	// book has a key: true points at the invoice: true
	// pen has a key: true points at the invoice: true
}

func ExampleSkipSetting() {
	db, _ := gorm.Open(sqlite.New(sqlite.Config{DriverName: "sqlite", DSN: "file::memory:"}), &gorm.Config{Logger: logger.Discard})
	_ = db.Use(gormplugin.New(gormplugin.WithNode(1)))

	var inv Invoice
	dry := db.Session(&gorm.Session{DryRun: true})
	dry.Set(gormplugin.SkipSetting, true).Create(&inv)
	fmt.Println("skipped:", inv.ID)
	dry.Create(&inv)
	fmt.Println("filled:", inv.ID != 0)
	// Output:
	// skipped: 0
	// filled: true
}

// A plugin with no options fills ObjectID keys; a Snowflake key to fill
// fails its create, with a message naming the options that fix it.
func ExampleNew_noOptions() {
	db, _ := gorm.Open(sqlite.New(sqlite.Config{DriverName: "sqlite", DSN: "file::memory:"}), &gorm.Config{Logger: logger.Discard})
	fmt.Println(db.Use(gormplugin.New()))
	type Doc struct{ ID types.ObjectID }
	type Post struct{ ID types.Snowflake }
	dry := db.Session(&gorm.Session{DryRun: true})
	doc := Doc{}
	fmt.Println(dry.Create(&doc).Error, !doc.ID.IsZero())
	fmt.Println(dry.Create(&Post{}).Error)
	// Output:
	// <nil>
	// <nil> true
	// idkit: no Snowflake generator: give gormplugin.WithNode or WithSnowflake to fill Snowflake keys (model Post, field ID)
}

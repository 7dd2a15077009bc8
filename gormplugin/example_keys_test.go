package gormplugin_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// The models and calls of the README's GORM section.

type Customer struct {
	ID        types.Snowflake // no tag needed: AutoMigrate makes a plain BIGINT, no sequence
	Email     string          `gorm:"size:64;uniqueIndex"`
	Name      string
	Purchases []Purchase
}

type Purchase struct {
	ID         types.ObjectID      // bytea / BINARY(12) / BLOB
	CustomerID types.NullSnowflake // set by GORM from the customer's key; NULL after Association Delete/Clear
	Item       string
	Coupon     types.NullSnowflake // optional reference: NULL unless set
	Ref        string              `gorm:"size:24" idkit:"objectid"` // plain types opt in with a tag
}

// exampleDB opens a SQLite database in a temporary directory with the
// plugin on node 7 and the README's tables.
func exampleDB() (*gorm.DB, func()) {
	dir, err := os.MkdirTemp("", "gormplugin")
	if err != nil {
		panic(err)
	}
	db, err := gorm.Open(sqlite.New(sqlite.Config{DriverName: "sqlite", DSN: filepath.Join(dir, "example.db")}), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		panic(err)
	}
	plugin := gormplugin.New(gormplugin.WithNode(7)) // or WithSnowflake(g)
	if err := db.Use(plugin); err != nil {
		log.Fatal(err) // a bad option, such as a node the layout cannot hold
	}
	if err := db.AutoMigrate(&Customer{}, &Purchase{}); err != nil {
		panic(err)
	}
	return db, func() {
		if sqlDB, err := db.DB(); err == nil {
			sqlDB.Close()
		}
		os.RemoveAll(dir)
	}
}

// Look rows up, update and delete them by an ObjectID key, as GORM's
// inline primary-key forms are written.
func Example_keys() {
	db, done := exampleDB()
	defer done()
	ann := Customer{Email: "ann@example.com", Name: "Ann", Purchases: []Purchase{{Item: "book"}, {Item: "pen"}, {Item: "lamp"}}}
	if err := db.Create(&ann).Error; err != nil {
		panic(err)
	}
	id, a, b := ann.Purchases[0].ID, ann.Purchases[1].ID, ann.Purchases[2].ID

	var purchase Purchase
	var purchases []Purchase
	db.First(&purchase, id)                                 // also Take, Last, Find(&purchases, id)
	db.Find(&purchases, []types.ObjectID{a, b})             // the rows with these keys
	db.Model(&Purchase{}).Where(id).Update("item", "novel") // that row only
	res := db.Delete(&Purchase{}, a)                        // res.RowsAffected == 1

	fmt.Println("first:", purchase.Item)
	fmt.Println("found:", len(purchases))
	fmt.Println("deleted:", res.RowsAffected, res.Error)
	var left []string
	db.Model(&Purchase{}).Order("item").Pluck("item", &left)
	fmt.Println("left:", left)
	// Output:
	// first: book
	// found: 2
	// deleted: 1 <nil>
	// left: [lamp novel]
}

// After an upsert the struct holds the key of the row stored for it.
func Example_upsert() {
	db, done := exampleDB()
	defer done()
	first := Customer{Email: "ann@example.com", Name: "Ann"}
	if err := db.Create(&first).Error; err != nil {
		panic(err)
	}

	c := Customer{Email: "ann@example.com", Name: "Ann B."}
	db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, UpdateAll: true}).Create(&c)
	// c.ID is the stored row's key, whether the row was inserted or updated

	skipped := Customer{Email: "ann@example.com", Name: "Ann C."}
	db.Clauses(clause.OnConflict{DoNothing: true}).Create(&skipped)
	// skipped.ID is zero: no row holds the key it was given

	var stored Customer
	db.First(&stored, "email = ?", "ann@example.com")
	fmt.Println("same key:", c.ID == first.ID)
	fmt.Println("stored name:", stored.Name)
	fmt.Println("skipped key is zero:", skipped.ID == 0)
	// Output:
	// same key: true
	// stored name: Ann B.
	// skipped key is zero: true
}

// Rows created in [from, to), as a primary-key range scan.
func Example_createdBetween() {
	db, done := exampleDB()
	defer done()
	from := time.Now().Add(-time.Minute)
	db.Create(&[]Customer{{Email: "a@example.com"}, {Email: "b@example.com"}})
	to := time.Now().Add(time.Millisecond)

	var customers []Customer
	r, _ := sqltypes.NewSnowflakeRange(generator.Twitter(), from, to)
	db.Scopes(r.Scope("")).Find(&customers) // or r.Args() for plain SQL
	fmt.Println("created:", len(customers))
	// Output:
	// created: 2
}

// Command gorm shows GORM models keyed by each idkit ID kind, with keys made
// by the gormplugin before every INSERT, then a lookup, an update and a
// delete by key and an upsert. It runs on embedded SQLite with no setup, or
// on PostgreSQL or MariaDB/MySQL given a DSN:
//
//	go run ./examples/gorm
//	go run ./examples/gorm -driver postgres -dsn 'host=127.0.0.1 user=postgres dbname=test sslmode=disable'
//	go run ./examples/gorm -driver mysql -dsn 'root@tcp(127.0.0.1:3306)/test?parseTime=true'
//
// The flags default to the environment variables IDKIT_GORM_DRIVER and
// IDKIT_GORM_DSN. On a server the example's tables (prefixed
// "idkit_example_") are dropped at the end unless -keep is given.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"
	"gorm.io/gorm/schema"
	_ "modernc.org/sqlite" // pure-Go SQLite, registered as "sqlite": no C compiler needed

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// Customer is keyed by a Snowflake: an int64 that sorts by creation time.
// No tag is needed, and AutoMigrate makes a plain BIGINT (no sequence).
type Customer struct {
	ID     types.Snowflake
	Name   string `gorm:"size:64;uniqueIndex"`
	Orders []Order
}

// Order is keyed by an ObjectID (BINARY(12), bytea or BLOB); CustomerID is
// set by GORM from the customer's key. It is nullable because GORM's
// association Delete and Clear set it to NULL, which a plain Snowflake
// would read as 0 and refuse to save again.
type Order struct {
	ID         types.ObjectID
	CustomerID types.NullSnowflake
	Item       string
	Coupon     types.NullSnowflake // nullable: NULL unless set
}

// Note is keyed by an ObjectID stored as 24 hex characters, for schemas that
// already store ObjectIDs as text.
type Note struct {
	ID   sqltypes.HexObjectID
	Text string
}

func main() {
	driver := flag.String("driver", envOr("IDKIT_GORM_DRIVER", "sqlite"), "sqlite, postgres or mysql")
	dsn := flag.String("dsn", os.Getenv("IDKIT_GORM_DSN"), "data source name (default: a temporary SQLite file)")
	node := flag.Int64("node", 1, "Snowflake node ID, unique among the processes writing at once")
	keep := flag.Bool("keep", false, "keep the example's tables")
	flag.Parse()
	if err := run(*driver, *dsn, *node, *keep); err != nil {
		log.Fatal(err)
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func open(driver, dsn string) (gorm.Dialector, func(), error) {
	switch driver {
	case "sqlite":
		if dsn != "" {
			return openSQLite(dsn), func() {}, nil
		}
		dir, err := os.MkdirTemp("", "idkit-gorm-example")
		if err != nil {
			return nil, nil, err
		}
		return openSQLite(filepath.Join(dir, "example.db")), func() { os.RemoveAll(dir) }, nil
	case "postgres":
		return postgres.Open(dsn), func() {}, nil
	case "mysql", "mariadb":
		return mysql.Open(dsn), func() {}, nil
	}
	return nil, nil, fmt.Errorf("unknown driver %q (want sqlite, postgres or mysql)", driver)
}

// openSQLite opens SQLite through modernc.org/sqlite (driver "sqlite"),
// which gorm.io/driver/sqlite accepts in place of mattn/go-sqlite3.
func openSQLite(dsn string) gorm.Dialector {
	return sqlite.New(sqlite.Config{DriverName: "sqlite", DSN: dsn})
}

func run(driver, dsn string, node int64, keep bool) (err error) {
	if driver != "sqlite" && dsn == "" {
		return errors.New("-dsn (or IDKIT_GORM_DSN) is required for " + driver)
	}
	dialector, cleanup, err := open(driver, dsn)
	if err != nil {
		return err
	}
	defer cleanup()
	db, err := gorm.Open(dialector, &gorm.Config{
		NamingStrategy: schema.NamingStrategy{TablePrefix: "idkit_example_"},
		Logger:         logger.Discard,
	})
	if err != nil {
		return err
	}
	if sqlDB, err := db.DB(); err == nil {
		defer sqlDB.Close()
	}

	start := time.Now()
	// One call: every create now has its keys before the INSERT.
	if err := db.Use(gormplugin.New(gormplugin.WithNode(node))); err != nil {
		return err
	}
	models := []any{&Customer{}, &Order{}, &Note{}}
	if err := db.AutoMigrate(models...); err != nil {
		return err
	}
	if !keep && driver != "sqlite" {
		defer func() { err = errors.Join(err, db.Migrator().DropTable(models...)) }()
	}

	ann := Customer{Name: "ann", Orders: []Order{{Item: "book"}, {Item: "pen", Coupon: types.NullSnowflake{ID: 42, Valid: true}}}}
	bob := Customer{Name: "bob", Orders: []Order{{Item: "lamp"}}}
	if err := db.Create([]*Customer{&ann, &bob}).Error; err != nil {
		return err
	}
	if err := db.Model(&Note{}).Create([]map[string]any{{"text": "hello"}, {"text": "world"}}).Error; err != nil {
		return err
	}

	fmt.Printf("on %s:\n", db.Dialector.Name())
	var customers []Customer
	if err := db.Preload("Orders").Order("id").Find(&customers).Error; err != nil {
		return err
	}
	for _, c := range customers {
		parts, err := generator.Twitter().Decompose(c.ID)
		if err != nil {
			return err
		}
		fmt.Printf("customer %d %s (node %d, %s)\n", c.ID, c.Name, parts.Node, parts.Time.Format(time.RFC3339Nano))
		for _, o := range c.Orders {
			coupon := "none"
			if o.Coupon.Valid {
				coupon = o.Coupon.ID.String()
			}
			fmt.Printf("  order %s %s coupon=%s\n", o.ID, o.Item, coupon)
		}
	}
	var notes []Note
	if err := db.Order("text").Find(&notes).Error; err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Printf("note %s %s\n", n.ID, n.Text)
	}

	// Rows created since start, as a primary-key range scan.
	r, err := sqltypes.NewSnowflakeRange(generator.Twitter(), start, time.Now().Add(time.Millisecond))
	if err != nil {
		return err
	}
	var recent int64
	if err := db.Model(&Customer{}).Scopes(r.Scope("")).Count(&recent).Error; err != nil {
		return err
	}
	fmt.Printf("customers created since start: %d\n", recent)

	// Look up, update and delete by key: GORM's inline primary-key forms.
	book, pen := ann.Orders[0].ID, ann.Orders[1].ID
	var order Order
	if err := db.First(&order, book).Error; err != nil {
		return err
	}
	fmt.Printf("found order %s: %s\n", order.ID, order.Item)
	if err := db.Model(&Order{}).Where(book).Update("item", "novel").Error; err != nil {
		return err
	}
	res := db.Delete(&Order{}, pen)
	if res.Error != nil {
		return res.Error
	}
	fmt.Printf("deleted order %s: %d row\n", pen, res.RowsAffected)
	var items []string
	if err := db.Model(&Order{}).Where("customer_id = ?", ann.ID).Order("item").Pluck("item", &items).Error; err != nil {
		return err
	}
	fmt.Printf("ann's orders now: %v\n", items)

	// An upsert: the struct gets the stored row's key, not a new one.
	again := Customer{Name: "ann"}
	onName := clause.OnConflict{Columns: []clause.Column{{Name: "name"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
	if err := db.Clauses(onName).Create(&again).Error; err != nil {
		return err
	}
	fmt.Printf("upsert of ann kept key %d: %t\n", again.ID, again.ID == ann.ID)
	return nil
}

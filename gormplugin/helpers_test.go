package gormplugin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/internal/testdb"
)

// dialect is one database the suite runs on.
type dialect struct {
	name string
	open func(t testing.TB) gorm.Dialector
}

var dialects = []dialect{
	{"sqlite", func(t testing.TB) gorm.Dialector { return sqlite.Open(testdb.SQLiteDSN(t)) }},
	{"postgres", func(testing.TB) gorm.Dialector { return postgres.Open(testdb.PostgresDSN()) }},
	{"mariadb", func(testing.TB) gorm.Dialector { return mysql.Open(testdb.MySQLDSN()) }},
}

// openDB opens d with a table prefix unique to this test, so that parallel
// test packages never share a table, and drops every table with that prefix
// when t ends. plugin may be nil.
func openDB(t testing.TB, d dialect, plugin *gormplugin.Plugin) *gorm.DB {
	t.Helper()
	prefix := testdb.Name("gp") + "_"
	db, err := gorm.Open(d.open(t), &gorm.Config{
		NamingStrategy: schema.NamingStrategy{TablePrefix: prefix},
		Logger:         logger.Default.LogMode(logger.Silent),
	})
	if err != nil {
		testdb.Unavailable(t, d.name, err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(ctx); err != nil {
		testdb.Unavailable(t, d.name, err)
	}
	t.Cleanup(func() {
		dropPrefixed(t, db, prefix)
		sqlDB.Close()
	})
	if plugin != nil {
		if err := db.Use(plugin); err != nil {
			t.Fatalf("db.Use: %v", err)
		}
	}
	return db
}

// dropPrefixed drops every table whose name starts with prefix.
func dropPrefixed(t testing.TB, db *gorm.DB, prefix string) {
	t.Helper()
	var names []string
	like := strings.ReplaceAll(prefix, "_", `\_`) + "%"
	var err error
	switch db.Dialector.Name() {
	case "sqlite":
		return // the database file is in t.TempDir
	case "postgres":
		err = db.Raw(`SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE ?`, like).Scan(&names).Error
	case "mysql":
		err = db.Raw(`SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE ?`, like).Scan(&names).Error
	}
	if err != nil {
		t.Errorf("listing tables to drop: %v", err)
		return
	}
	err = db.Connection(func(tx *gorm.DB) error {
		if db.Dialector.Name() == "mysql" {
			if err := tx.Exec("SET FOREIGN_KEY_CHECKS = 0").Error; err != nil {
				return err
			}
			defer tx.Exec("SET FOREIGN_KEY_CHECKS = 1")
		}
		for _, n := range names {
			q := "DROP TABLE IF EXISTS " + tx.Statement.Quote(n)
			if db.Dialector.Name() == "postgres" {
				q += " CASCADE"
			}
			if err := tx.Exec(q).Error; err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Errorf("dropping tables: %v", err)
	}
}

// forEachDB runs f on each dialect, with a fresh database handle using a
// new plugin with node 1.
func forEachDB(t *testing.T, f func(t *testing.T, db *gorm.DB)) {
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) {
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

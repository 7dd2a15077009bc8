// Package testgorm opens GORM on the real databases idkit supports, for
// tests: SQLite in a temporary directory, and PostgreSQL and MariaDB from
// the DSNs of package testdb, with the same skip-or-fail rule.
package testgorm

import (
	"context"
	"strings"
	"testing"
	"time"

	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/internal/testdb"
)

// Dialect is one database a suite runs on.
type Dialect struct {
	Name   string // sqlite, postgres or mariadb
	Server string // the server's name in testdb's skip summary
	Open   func(t testing.TB) gorm.Dialector
}

// Dialects are SQLite, PostgreSQL and MariaDB, in that order.
var Dialects = []Dialect{
	{"sqlite", "SQLite", func(t testing.TB) gorm.Dialector { return SQLite(testdb.SQLiteDSN(t)) }},
	{"postgres", "PostgreSQL", func(testing.TB) gorm.Dialector { return postgres.Open(testdb.PostgresDSN()) }},
	{"mariadb", "MariaDB", func(testing.TB) gorm.Dialector { return mysql.Open(testdb.MySQLDSN()) }},
}

// Open opens d with a table prefix unique to this test (so that parallel
// test packages never share a table) and a silent logger. A server that
// cannot be reached skips t, or fails it under CI. When t ends, every table
// with the prefix is dropped and the connection closed.
func Open(t testing.TB, d Dialect) *gorm.DB {
	t.Helper()
	testdb.SkipIfDown(t, d.Server)
	prefix := testdb.Name("t") + "_"
	db, err := gorm.Open(d.Open(t), &gorm.Config{
		NamingStrategy: schema.NamingStrategy{TablePrefix: prefix},
		Logger:         logger.Default.LogMode(logger.Silent),
	})
	if err != nil {
		testdb.Unavailable(t, d.Server, err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(ctx); err != nil {
		testdb.Unavailable(t, d.Server, err)
	}
	t.Cleanup(func() {
		dropPrefixed(t, db, prefix)
		sqlDB.Close()
	})
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

package testgorm_test

import (
	"errors"
	"strings"
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/internal/testgorm"
)

type parent struct {
	ID   uint
	Name string `gorm:"uniqueIndex"`
}

type child struct {
	ID       uint
	ParentID uint
	Parent   parent
}

// The pure-Go SQLite dialector keeps what gorm.io/driver/sqlite gives with
// mattn/go-sqlite3: RETURNING on inserts and GORM's translated errors.
func TestPureSQLite(t *testing.T) {
	db, err := gorm.Open(testgorm.SQLite(testdb.SQLiteDSN(t)+"&_pragma=foreign_keys(1)"),
		&gorm.Config{TranslateError: true, Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AutoMigrate(&parent{}, &child{}); err != nil {
		t.Fatal(err)
	}

	stmt := db.Session(&gorm.Session{DryRun: true}).Create(&parent{Name: "x"}).Statement
	if sql := stmt.SQL.String(); !strings.Contains(sql, "RETURNING") {
		t.Errorf("insert without RETURNING: %s", sql)
	}

	p := parent{Name: "a"}
	if err := db.Create(&p).Error; err != nil {
		t.Fatal(err)
	}
	if p.ID == 0 {
		t.Error("ID not read back through RETURNING")
	}
	err = db.Create(&parent{Name: "a"}).Error
	if !errors.Is(err, gorm.ErrDuplicatedKey) {
		t.Errorf("duplicate unique key: got %v, want gorm.ErrDuplicatedKey", err)
	}
	err = db.Create(&parent{ID: p.ID, Name: "b"}).Error
	if !errors.Is(err, gorm.ErrDuplicatedKey) {
		t.Errorf("duplicate primary key: got %v, want gorm.ErrDuplicatedKey", err)
	}
	err = db.Omit("Parent").Create(&child{ParentID: p.ID + 100}).Error
	if !errors.Is(err, gorm.ErrForeignKeyViolated) {
		t.Errorf("missing parent: got %v, want gorm.ErrForeignKeyViolated", err)
	}

	var n int64
	if err := db.Model(&parent{}).Count(&n).Error; err != nil || n != 1 {
		t.Errorf("parents stored: %d, %v; want 1", n, err)
	}
	if err := db.Model(&child{}).Count(&n).Error; err != nil || n != 0 {
		t.Errorf("children stored: %d, %v; want 0", n, err)
	}
}

package main

import (
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/publicid"
	"github.com/idkit-go/idkit/types"
)

// TestGuessedIDs asks the API for well-formed public IDs that no one was
// given, as a scraper does: every one must be a 404, never a 500.
func TestGuessedIDs(t *testing.T) {
	users, err := publicid.New[types.Snowflake]("user", "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
	if err != nil {
		t.Fatal(err)
	}
	db, err := gorm.Open(sqlite.New(sqlite.Config{DriverName: "sqlite", DSN: "file::memory:"}), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := db.DB()
	sqlDB.SetMaxOpenConns(1)
	if err := db.Use(gormplugin.New(gormplugin.WithNode(1))); err != nil {
		t.Fatal(err)
	}
	if err := db.AutoMigrate(&User{}); err != nil {
		t.Fatal(err)
	}
	h := (&api{db: db, users: users}).routes()
	const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
	r := rand.New(rand.NewPCG(1, 2))
	status := map[int]int{}
	const n = 2000
	for range n {
		b := []byte("/users/user_1")
		b = append(b, alphabet[r.IntN(16)]) // a first digit that fits 64 bits
		for range 12 {
			b = append(b, alphabet[r.IntN(32)])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, string(b), nil))
		status[rec.Code]++
		if rec.Code != http.StatusNotFound && n-status[http.StatusNotFound] <= 5 {
			body, _ := io.ReadAll(rec.Body)
			t.Errorf("GET %s -> %d %s", b, rec.Code, body)
		}
	}
	if status[http.StatusNotFound] != n {
		t.Fatalf("%d guessed IDs: %v by status", n, status)
	}
}

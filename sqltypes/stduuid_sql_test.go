//go:build go1.27

package sqltypes_test

import (
	"database/sql"
	"testing"
	"uuid"

	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

// stdUUIDDriver is one database/sql driver the README names, with the key
// column type and placeholders of its database.
type stdUUIDDriver struct {
	name     string
	open     func(testing.TB) *sql.DB
	col      string
	ph1, ph2 string
	// plain is what the driver does with a uuid.UUID argument and no help:
	// "error", or the length of what it stores (36: the text form, which
	// Go's database/sql makes of a uuid.UUID; 16: the bytes).
	plain string
}

var stdUUIDDrivers = []stdUUIDDriver{
	{"pgx", testdb.Postgres, "uuid", "$1", "$2", "16"},
	{"mysql", testdb.MySQL, "BINARY(16)", "?", "?", "error"},
	{"sqlite", testdb.SQLite, "BLOB", "?", "?", "36"},
}

// TestStdUUIDDatabaseSQL records what each driver does with Go's uuid.UUID
// on its own, and checks what idkit adds: types.UUID(u) at the call site
// stores the 16 bytes everywhere, and Scan into a *uuid.UUID reads them.
func TestStdUUIDDatabaseSQL(t *testing.T) {
	for _, d := range stdUUIDDrivers {
		t.Run(d.name, func(t *testing.T) {
			db := d.open(t)
			table := testdb.Name("idkit_stduuid")
			if _, err := db.Exec("CREATE TABLE " + table + " (id " + d.col + " NOT NULL PRIMARY KEY, n INT)"); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Exec("DROP TABLE " + table) })
			ins := "INSERT INTO " + table + " (id, n) VALUES (" + d.ph1 + ", " + d.ph2 + ")"
			u := uuid.NewV7()
			_, err := db.Exec(ins, u, 1)
			got := "error"
			if err == nil {
				var n int
				q := "SELECT length(id) FROM " + table + " WHERE n = 1"
				if d.name == "pgx" {
					q = "SELECT length(id::text) / 2 - 2 FROM " + table + " WHERE n = 1" // a uuid column holds 16 bytes
				}
				if err := db.QueryRow(q).Scan(&n); err != nil {
					t.Fatal(err)
				}
				got = map[int]string{16: "16", 36: "36"}[n]
			}
			if got != d.plain {
				t.Fatalf("uuid.UUID with no help: %s (err %v), the docs say %s", got, err, d.plain)
			}

			v := uuid.NewV7()
			if _, err := db.Exec(ins, types.UUID(v), 2); err != nil {
				t.Fatalf("types.UUID(u): %v", err)
			}
			var back uuid.UUID
			if err := db.QueryRow("SELECT id FROM "+table+" WHERE id = "+d.ph1, types.UUID(v)).Scan(&back); err != nil || back != v {
				t.Fatalf("Scan into *uuid.UUID = %s, %v; want %s", back, err, v)
			}
		})
	}
}

package sqltypes_test

import (
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

// TestMariaDBUUIDColumn checks what docs/sql.md says of MariaDB's own UUID
// column type: it refuses the 16 bytes of a types.UUID argument (and a
// lookup by them finds nothing), takes the UUID's text, and scans back
// into a types.UUID.
func TestMariaDBUUIDColumn(t *testing.T) {
	db := testdb.MySQL(t)
	table := testdb.Name("idkit_mariauuid")
	if _, err := db.Exec("CREATE TABLE " + table + " (id UUID NOT NULL PRIMARY KEY, n INT)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec("DROP TABLE " + table) })
	u := types.NewUUIDv7()
	_, err := db.Exec("INSERT INTO "+table+" (id, n) VALUES (?, ?)", u, 1)
	if err == nil || !strings.Contains(err.Error(), "Incorrect uuid value") {
		t.Fatalf("insert of the 16 bytes: %v, want MariaDB's Incorrect uuid value", err)
	}
	if _, err := db.Exec("INSERT INTO "+table+" (id, n) VALUES (?, ?)", u.String(), 2); err != nil {
		t.Fatalf("insert of the text: %v", err)
	}
	var got types.UUID
	if err := db.QueryRow("SELECT id FROM " + table + " WHERE n = 2").Scan(&got); err != nil || got != u {
		t.Fatalf("scan: %v %v, want %v", err, got, u)
	}
	var n int
	if err := db.QueryRow("SELECT n FROM "+table+" WHERE id = ?", u).Scan(&n); !errors.Is(err, sql.ErrNoRows) {
		t.Fatalf("lookup by the bytes: %v, want no rows", err)
	}
	if err := db.QueryRow("SELECT n FROM "+table+" WHERE id = ?", u.String()).Scan(&n); err != nil || n != 2 {
		t.Fatalf("lookup by the text: %v, n = %d", err, n)
	}
	var stored int
	if err := db.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&stored); err != nil || stored != 1 {
		t.Fatalf("rows stored: %d (%v), want 1", stored, err)
	}
}

package libpq_test

import (
	"database/sql"
	"os"
	"strings"
	"testing"

	_ "github.com/lib/pq"

	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// openPQ opens PostgreSQL through lib/pq, with one extra connection
// parameter (key=value) unless param is "".
func openPQ(t *testing.T, param string) *sql.DB {
	t.Helper()
	dsn := testdb.PostgresDSN()
	switch {
	case param == "":
	case strings.Contains(dsn, "://") && strings.Contains(dsn, "?"):
		dsn += "&" + param
	case strings.Contains(dsn, "://"):
		dsn += "?" + param
	default:
		dsn += " " + param
	}
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		testdb.Unavailable(t, "PostgreSQL", err)
	}
	return db
}

// TestUUIDColumn pins what docs/sql.md says: lib/pq sends a []byte
// argument as bytea text, which a uuid column rejects, unless the
// connection sets binary_parameters=yes or the SQL converts the bytes;
// scanning a uuid column needs nothing.
func TestUUIDColumn(t *testing.T) {
	plain := openPQ(t, "")
	binary := openPQ(t, "binary_parameters=yes")
	table := testdb.Name("idkit_pq_uuid")
	if _, err := plain.Exec(`CREATE TABLE ` + table + ` (id uuid PRIMARY KEY, ref uuid NULL)`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plain.Exec("DROP TABLE IF EXISTS " + table) })
	ins := `INSERT INTO ` + table + ` (id, ref) VALUES ($1, $2)`

	a, b, c := types.NewUUIDv7(), types.NewUUIDv7(), types.NewUUIDv7()
	if _, err := plain.Exec(ins, a, types.NullUUID{}); err == nil {
		t.Fatal("lib/pq without binary_parameters stored a types.UUID in a uuid column; update docs/sql.md")
	}
	if _, err := binary.Exec(ins, a, types.NullUUID{ID: c, Valid: true}); err != nil {
		t.Fatalf("binary_parameters=yes: %v", err)
	}
	if _, err := plain.Exec(`INSERT INTO `+table+` (id, ref) VALUES (encode($1::bytea, 'hex')::uuid, NULL)`, b); err != nil {
		t.Fatalf("encode($1::bytea, 'hex')::uuid: %v", err)
	}
	if _, err := binary.Exec(ins, types.UUID{}, nil); err == nil {
		t.Fatal("a zero UUID was stored")
	}

	for _, db := range []*sql.DB{plain, binary} {
		var text string
		var id types.UUID
		var ref types.NullUUID
		if err := db.QueryRow(`SELECT id::text, id, ref FROM `+table+` WHERE id::text = $1`, a.String()).Scan(&text, &id, &ref); err != nil {
			t.Fatal(err)
		}
		if text != a.String() || id != a || ref != (types.NullUUID{ID: c, Valid: true}) {
			t.Fatalf("stored %s, scanned %v %+v", text, id, ref)
		}
		ref = types.NullUUID{ID: c, Valid: true}
		if err := db.QueryRow(`SELECT id, ref FROM `+table+` WHERE id::text = $1`, b.String()).Scan(&id, &ref); err != nil {
			t.Fatal(err)
		}
		if id != b || ref.Valid {
			t.Fatalf("scanned %v %+v", id, ref)
		}
	}
	var n int
	if err := binary.QueryRow(`SELECT count(*) FROM `+table+` WHERE id = $1`, b).Scan(&n); err != nil || n != 1 {
		t.Fatalf("WHERE id = $1 with binary_parameters: %d, %v", n, err)
	}
}

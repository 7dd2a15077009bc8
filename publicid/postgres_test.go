package publicid_test

import (
	"strings"
	"testing"

	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/publicid"
	"github.com/idkit-go/idkit/types"
)

// TestTypeIDRotationPostgres makes 20,000 rows keyed by PostgreSQL's
// gen_random_uuid() (version 4), gives half of them TypeIDs under key 1
// and half under key 2 after key 2 is added, and decodes every TypeID with
// the ring of both keys: each decodes to its row's key, and each row is
// found in the database by the decoded key.
func TestTypeIDRotationPostgres(t *testing.T) {
	db := testdb.Postgres(t)
	table := testdb.Name("publicid_typeid")
	if _, err := db.Exec(`CREATE TABLE ` + table + ` (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec(`DROP TABLE ` + table) })
	const rows = 20_000
	if _, err := db.Exec(`INSERT INTO `+table+` (n) SELECT generate_series(1, $1)`, rows); err != nil {
		t.Fatal(err)
	}
	res, err := db.Query(`SELECT id, n FROM ` + table + ` ORDER BY n`)
	if err != nil {
		t.Fatal(err)
	}
	var ids []types.UUID
	for res.Next() {
		var id types.UUID
		var n int
		if err := res.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := res.Err(); err != nil || len(ids) != rows {
		t.Fatalf("read %d rows: %v", len(ids), err)
	}

	before := mustNew[types.UUID](t, "user", key1)
	during := mustNew[types.UUID](t, "user", key2+","+key1)
	var decoded []string
	refused, wrong := 0, 0
	for i, id := range ids {
		enc := before
		if i%2 == 1 {
			enc = during
		}
		got, err := publicid.DecodeTypeID(during, mustTypeID(t, enc, id))
		switch {
		case err != nil:
			refused++
		case got != id:
			wrong++
		}
		decoded = append(decoded, got.String())
	}
	if refused != 0 || wrong != 0 {
		t.Fatalf("of %d TypeIDs of gen_random_uuid() keys, %d refused and %d decoded to another UUID", rows, refused, wrong)
	}
	// Every decoded key finds its row, in order.
	var found, inOrder int
	err = db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE t.n = d.ord)
		FROM unnest($1::uuid[]) WITH ORDINALITY AS d(id, ord) JOIN `+table+` t ON t.id = d.id`,
		"{"+strings.Join(decoded, ",")+"}").Scan(&found, &inOrder)
	if err != nil {
		t.Fatal(err)
	}
	if found != rows || inOrder != rows {
		t.Fatalf("decoded keys found %d rows, %d of them the right one; want %d", found, inOrder, rows)
	}
}

package pgxtypes_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

// TestUUIDEveryExecMode stores UUIDs in a PostgreSQL uuid column through
// pgx in every query execution mode, registered or not, checks the rows
// with SQL text, and reads them back.
func TestUUIDEveryExecMode(t *testing.T) {
	for _, mode := range execModes {
		for _, register := range []bool{false, true} {
			name := mode.String()
			if register {
				name += "/registered"
			}
			t.Run(name, func(t *testing.T) { testUUID(t, mode, register) })
		}
	}
}

func testUUID(t *testing.T, mode pgx.QueryExecMode, register bool) {
	conn := connect(t, mode, register)
	ctx := context.Background()
	table := testdb.Name("idkit_pgx_uuid")
	if _, err := conn.Exec(ctx, `CREATE TABLE `+table+` (id uuid PRIMARY KEY, ref uuid NULL)`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Exec(context.Background(), "DROP TABLE IF EXISTS "+table) })

	a, b := types.NewUUIDv7(), types.NewUUIDv7()
	ins := `INSERT INTO ` + table + ` (id, ref) VALUES ($1, $2)`
	if typesUnknown(mode) && !register {
		// Value's 16 bytes go as bytea text, which a uuid column rejects
		// (as with lib/pq): these modes need Register.
		if _, err := conn.Exec(ctx, ins, a, types.NullUUID{}); err == nil {
			t.Fatalf("a UUID argument worked in %v without Register; update the docs", mode)
		}
		return
	}
	if _, err := conn.Exec(ctx, ins, a, types.NullUUID{}); err != nil {
		t.Fatalf("insert with NULL ref: %v", err)
	}
	if _, err := conn.Exec(ctx, ins, b, types.NullUUID{ID: a, Valid: true}); err != nil {
		t.Fatalf("insert with ref: %v", err)
	}
	if _, err := conn.Exec(ctx, ins, types.UUID{}, types.NullUUID{}); !errors.Is(err, types.ErrZeroID) {
		t.Fatalf("insert of a zero UUID: %v, want ErrZeroID", err)
	}

	rows, err := conn.Query(ctx, `SELECT id::text, coalesce(ref::text, 'NULL') FROM `+table+` ORDER BY id`, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]string, error) {
		var s [2]string
		return s, r.Scan(&s[0], &s[1])
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][2]string{{a.String(), "NULL"}, {b.String(), a.String()}}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("stored %v, want %v", got, want)
	}

	var id types.UUID
	var ref types.NullUUID
	if err := conn.QueryRow(ctx, `SELECT id, ref FROM `+table+` WHERE id = $1`, b).Scan(&id, &ref); err != nil {
		t.Fatal(err)
	}
	if id != b || ref != (types.NullUUID{ID: a, Valid: true}) {
		t.Fatalf("scanned %v %+v", id, ref)
	}
	ref = types.NullUUID{ID: b, Valid: true} // NULL must reset it
	if err := conn.QueryRow(ctx, `SELECT id, ref FROM `+table+` WHERE id = $1`, a).Scan(&id, &ref); err != nil {
		t.Fatal(err)
	}
	if id != a || ref.Valid {
		t.Fatalf("scanned %v %+v, want a NULL ref", id, ref)
	}
	keep := b
	err = conn.QueryRow(ctx, `SELECT ref FROM `+table+` WHERE id = $1`, a).Scan(&keep)
	if !errors.Is(err, types.ErrNull) || !errors.Is(err, types.ErrInvalidUUID) || keep != b {
		t.Fatalf("NULL into UUID: %v (%v), want ErrNull and the target unchanged", err, keep)
	}

	var n int
	err = conn.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE id = ANY($1)`, []types.UUID{a, b}).Scan(&n)
	if err != nil || n != 2 {
		t.Fatalf("= ANY([]types.UUID): %d, %v", n, err)
	}
	var all []types.UUID
	if err := conn.QueryRow(ctx, `SELECT array_agg(id ORDER BY id) FROM `+table).Scan(&all); err != nil {
		if !register {
			return
		}
		t.Fatalf("array_agg into []types.UUID: %v", err)
	}
	if len(all) != 2 || all[0] != a || all[1] != b {
		t.Fatalf("array_agg = %v", all)
	}
}

// TestUUIDPointersEveryExecMode stores *types.UUID and *types.NullUUID
// arguments in a uuid column after Register, in every execution mode, and
// reads them back into pointers.
func TestUUIDPointersEveryExecMode(t *testing.T) {
	for _, mode := range execModes {
		t.Run(mode.String(), func(t *testing.T) {
			conn := connect(t, mode, true)
			ctx := context.Background()
			table := testdb.Name("idkit_pgx_uuidptr")
			if _, err := conn.Exec(ctx, `CREATE TABLE `+table+` (id uuid PRIMARY KEY, ref uuid NULL)`); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Exec(context.Background(), "DROP TABLE IF EXISTS "+table) })

			a, b := types.NewUUIDv7(), types.NewUUIDv7()
			ins := `INSERT INTO ` + table + ` (id, ref) VALUES ($1, $2)`
			if _, err := conn.Exec(ctx, ins, &a, &types.NullUUID{}); err != nil {
				t.Fatalf("insert *UUID, *NullUUID (NULL): %v", err)
			}
			if _, err := conn.Exec(ctx, ins, &b, &types.NullUUID{ID: a, Valid: true}); err != nil {
				t.Fatalf("insert *UUID, *NullUUID: %v", err)
			}
			if _, err := conn.Exec(ctx, ins, (*types.UUID)(nil), (*types.NullUUID)(nil)); err == nil {
				t.Fatal("insert of a nil *UUID key worked")
			}
			if _, err := conn.Exec(ctx, ins, &types.UUID{}, nil); !errors.Is(err, types.ErrZeroID) {
				t.Fatalf("insert of a zero *UUID: %v, want ErrZeroID", err)
			}
			var ref string
			if err := conn.QueryRow(ctx, `SELECT ref::text FROM `+table+` WHERE id = $1`, &b).Scan(&ref); err != nil || ref != a.String() {
				t.Fatalf("ref = %q, %v; want %s", ref, err, a)
			}
			id, nref := new(types.UUID), new(types.NullUUID)
			if err := conn.QueryRow(ctx, `SELECT id, ref FROM `+table+` WHERE ref = $1`, &types.NullUUID{ID: a, Valid: true}).Scan(id, nref); err != nil {
				t.Fatal(err)
			}
			if *id != b || *nref != (types.NullUUID{ID: a, Valid: true}) {
				t.Fatalf("scanned %v %+v", *id, *nref)
			}
		})
	}
}

package spanner_test

import (
	"bytes"
	"context"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/iterator"

	"github.com/idkit-go/idkit/types"
)

// The ID types and their Null forms are the client's Encoders, and
// pointers to them its Decoders.
var (
	_ spanner.Encoder = types.ObjectID{}
	_ spanner.Encoder = types.Snowflake(0)
	_ spanner.Encoder = types.UUID{}
	_ spanner.Encoder = types.NullObjectID{}
	_ spanner.Encoder = types.NullSnowflake{}
	_ spanner.Encoder = types.NullUUID{}
	_ spanner.Decoder = (*types.ObjectID)(nil)
	_ spanner.Decoder = (*types.Snowflake)(nil)
	_ spanner.Decoder = (*types.UUID)(nil)
	_ spanner.Decoder = (*types.NullObjectID)(nil)
	_ spanner.Decoder = (*types.NullSnowflake)(nil)
	_ spanner.Decoder = (*types.NullUUID)(nil)
)

// idRow has a field of each ID type and of each Null form, as users put
// them in the structs they insert and read.
type idRow struct {
	OID  types.ObjectID      `spanner:"oid"`
	SF   types.Snowflake     `spanner:"sf"`
	U    types.UUID          `spanner:"u"`
	NOID types.NullObjectID  `spanner:"noid"`
	NSF  types.NullSnowflake `spanner:"nsf"`
	NU   types.NullUUID      `spanner:"nu"`
}

// ptrRow reads the same columns into pointers: NULL is nil.
type ptrRow struct {
	OID  *types.ObjectID  `spanner:"oid"`
	SF   *types.Snowflake `spanner:"sf"`
	U    *types.UUID      `spanner:"u"`
	NOID *types.ObjectID  `spanner:"noid"`
	NSF  *types.Snowflake `spanner:"nsf"`
	NU   *types.UUID      `spanner:"nu"`
}

const idsDDL = `CREATE TABLE ids (
	oid BYTES(12) NOT NULL,
	sf INT64 NOT NULL,
	u BYTES(16) NOT NULL,
	noid BYTES(12),
	nsf INT64,
	nu BYTES(16),
) PRIMARY KEY (oid)`

var idCols = []string{"oid", "sf", "u", "noid", "nsf", "nu"}

var sfSeq types.Snowflake = 1 << 40

// fullRow returns a row with every column set; nullRow one with every
// nullable column NULL.
func fullRow() idRow {
	sfSeq++
	return idRow{
		OID: types.NewObjectID(), SF: sfSeq + 1<<50, U: types.NewUUIDv7(),
		NOID: types.NullObjectID{ID: types.NewObjectID(), Valid: true},
		NSF:  types.NullSnowflake{ID: sfSeq + 1<<51, Valid: true},
		NU:   types.NullUUID{ID: types.NewUUIDv7(), Valid: true},
	}
}

func nullRow() idRow {
	sfSeq++
	return idRow{OID: types.NewObjectID(), SF: sfSeq, U: types.NewUUIDv7()}
}

func (r idRow) values() []any {
	return []any{r.OID, r.SF, r.U, r.NOID, r.NSF, r.NU}
}

func (r *idRow) ptrs() []any {
	return []any{&r.OID, &r.SF, &r.U, &r.NOID, &r.NSF, &r.NU}
}

func equalRows(t *testing.T, got, want idRow) {
	t.Helper()
	eq := got.OID == want.OID && got.SF == want.SF && got.U == want.U &&
		got.NOID == want.NOID && got.NSF == want.NSF && got.NU == want.NU
	if !eq {
		t.Errorf("read back %+v, wrote %+v", got, want)
	}
}

func equalNull[T comparable](p *T, id T, valid bool) bool {
	if p == nil {
		return !valid
	}
	return valid && *p == id
}

// checkStored reads r's row with the client's own types and compares each
// column with the representation the ID types promise: BYTES of the raw
// bytes, INT64 of the Snowflake, NULL for a Null form that is not valid or
// a nil pointer.
func checkStored(t *testing.T, c *spanner.Client, r idRow) {
	t.Helper()
	row, err := c.Single().ReadRow(context.Background(), "ids", spanner.Key{r.OID[:]}, idCols)
	if err != nil {
		t.Fatalf("read row %s with a []byte key: %v", r.OID, err)
	}
	var oid, u, noid, nu []byte
	var sf int64
	var nsf spanner.NullInt64
	if err := row.Columns(&oid, &sf, &u, &noid, &nsf, &nu); err != nil {
		t.Fatal(err)
	}
	checkBytes(t, "oid", oid, r.OID[:], true)
	checkBytes(t, "u", u, r.U[:], true)
	checkBytes(t, "noid", noid, r.NOID.ID[:], r.NOID.Valid)
	checkBytes(t, "nu", nu, r.NU.ID[:], r.NU.Valid)
	if sf != int64(r.SF) {
		t.Errorf("sf: stored %d, want %d", sf, r.SF)
	}
	if want := (spanner.NullInt64{Int64: int64(r.NSF.ID), Valid: r.NSF.Valid}); nsf != want {
		t.Errorf("nsf: stored %v, want %v", nsf, want)
	}
}

func checkBytes(t *testing.T, col string, got, want []byte, valid bool) {
	t.Helper()
	if !valid {
		want = nil
	}
	if (got == nil) != (want == nil) || !bytes.Equal(got, want) {
		t.Errorf("%s: stored %x (nil: %t), want %x (nil: %t)", col, got, got == nil, want, want == nil)
	}
}

func TestIDColumns(t *testing.T) {
	c := newDB(t, idsDDL)
	ctx := context.Background()
	full, null := fullRow(), nullRow()
	full2, null2 := fullRow(), nullRow()

	t.Run("InsertStruct", func(t *testing.T) {
		for _, r := range []idRow{full, null} {
			m, err := spanner.InsertStruct("ids", r)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Apply(ctx, []*spanner.Mutation{m}); err != nil {
				t.Fatal(err)
			}
			checkStored(t, c, r)
			// Read with the ID as the key, into the struct.
			row, err := c.Single().ReadRow(ctx, "ids", spanner.Key{r.OID}, idCols)
			if err != nil {
				t.Fatal(err)
			}
			var got idRow
			if err := row.ToStruct(&got); err != nil {
				t.Fatal(err)
			}
			equalRows(t, got, r)
		}
	})

	t.Run("Insert", func(t *testing.T) {
		for _, r := range []idRow{full2, null2} {
			m := spanner.Insert("ids", idCols, r.values())
			if _, err := c.Apply(ctx, []*spanner.Mutation{m}); err != nil {
				t.Fatal(err)
			}
			checkStored(t, c, r)
			row, err := c.Single().ReadRow(ctx, "ids", spanner.Key{r.OID[:]}, idCols)
			if err != nil {
				t.Fatal(err)
			}
			var got idRow
			if err := row.Columns(got.ptrs()...); err != nil {
				t.Fatal(err)
			}
			equalRows(t, got, r)
		}
	})

	t.Run("Update", func(t *testing.T) {
		// Setting a nullable column to NULL and back.
		r := full2
		r.NOID, r.NSF, r.NU = types.NullObjectID{}, types.NullSnowflake{}, types.NullUUID{}
		m, err := spanner.UpdateStruct("ids", r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Apply(ctx, []*spanner.Mutation{m}); err != nil {
			t.Fatal(err)
		}
		checkStored(t, c, r)
		if _, err := c.Apply(ctx, []*spanner.Mutation{spanner.Update("ids", idCols, full2.values())}); err != nil {
			t.Fatal(err)
		}
		checkStored(t, c, full2)
	})

	t.Run("SQLParameters", func(t *testing.T) {
		for _, r := range []idRow{full, null, full2, null2} {
			stmt := spanner.Statement{
				SQL: `SELECT oid, sf, u, noid, nsf, nu FROM ids
					WHERE oid = @oid AND sf = @sf AND u = @u
					AND (noid = @noid OR (noid IS NULL AND @noid IS NULL))
					AND (nsf = @nsf OR (nsf IS NULL AND @nsf IS NULL))
					AND (nu = @nu OR (nu IS NULL AND @nu IS NULL))`,
				Params: map[string]any{
					"oid": r.OID, "sf": r.SF, "u": r.U,
					"noid": r.NOID, "nsf": r.NSF, "nu": r.NU,
				},
			}
			rows := readAll(t, c, stmt)
			if len(rows) != 1 {
				t.Fatalf("WHERE with the IDs of %+v as parameters: %d rows, want 1", r, len(rows))
			}
			var got idRow
			if err := rows[0].ToStruct(&got); err != nil {
				t.Fatal(err)
			}
			equalRows(t, got, r)
		}
		// A parameter comes back as the same ID, and a NULL one as NULL.
		stmt := spanner.Statement{
			SQL: "SELECT @oid AS oid, @sf AS sf, @u AS u, @noid AS noid, @nsf AS nsf, @nu AS nu",
			Params: map[string]any{
				"oid": full.OID, "sf": full.SF, "u": full.U,
				"noid": types.NullObjectID{}, "nsf": types.NullSnowflake{}, "nu": types.NullUUID{},
			},
		}
		rows := readAll(t, c, stmt)
		var got idRow
		if err := rows[0].ToStruct(&got); err != nil {
			t.Fatal(err)
		}
		equalRows(t, got, idRow{OID: full.OID, SF: full.SF, U: full.U})
	})

	t.Run("ArrayParameters", func(t *testing.T) {
		// IN UNNEST(@ids): the client sends a []types.Snowflake as an
		// ARRAY<INT64> by itself; ObjectIDs and UUIDs go as [][]byte.
		stmt := spanner.Statement{
			SQL: `SELECT oid FROM ids WHERE sf IN UNNEST(@sfs) AND oid IN UNNEST(@oids) AND u IN UNNEST(@us) ORDER BY oid`,
			Params: map[string]any{
				"sfs":  []types.Snowflake{full.SF, null.SF, 1},
				"oids": [][]byte{full.OID[:], null.OID[:], full2.OID[:]},
				"us":   [][]byte{full.U[:], null.U[:]},
			},
		}
		var got []types.ObjectID
		for _, row := range readAll(t, c, stmt) {
			var id types.ObjectID
			if err := row.Columns(&id); err != nil {
				t.Fatal(err)
			}
			got = append(got, id)
		}
		want := []types.ObjectID{full.OID, null.OID}
		if want[0].Compare(want[1]) > 0 {
			want[0], want[1] = want[1], want[0]
		}
		if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("IN UNNEST: %v, want %v", got, want)
		}
	})

	t.Run("Pointers", func(t *testing.T) {
		// A pointer to an ID is written as the ID, and read back as nil
		// for NULL. (A nil pointer cannot be written: the client calls
		// EncodeSpanner through it. Use the Null forms.)
		r := nullRow()
		m := spanner.Insert("ids", idCols[:3], []any{&r.OID, &r.SF, &r.U})
		if _, err := c.Apply(ctx, []*spanner.Mutation{m}); err != nil {
			t.Fatal(err)
		}
		checkStored(t, c, r)
		for _, r := range []idRow{full, r} {
			row, err := c.Single().ReadRow(ctx, "ids", spanner.Key{r.OID}, idCols)
			if err != nil {
				t.Fatal(err)
			}
			var got ptrRow
			if err := row.ToStruct(&got); err != nil {
				t.Fatal(err)
			}
			if *got.OID != r.OID || *got.SF != r.SF || *got.U != r.U ||
				!equalNull(got.NOID, r.NOID.ID, r.NOID.Valid) ||
				!equalNull(got.NSF, r.NSF.ID, r.NSF.Valid) ||
				!equalNull(got.NU, r.NU.ID, r.NU.Valid) {
				t.Errorf("read %+v into pointers, wrote %+v", got, r)
			}
		}
	})

	t.Run("Count", func(t *testing.T) {
		// Every row above is in the table once, and no other.
		rows := readAll(t, c, spanner.Statement{SQL: "SELECT oid FROM ids ORDER BY oid"})
		if len(rows) != 5 {
			t.Fatalf("%d rows, want 5", len(rows))
		}
	})
}

func readAll(t *testing.T, c *spanner.Client, stmt spanner.Statement) []*spanner.Row {
	t.Helper()
	it := c.Single().Query(context.Background(), stmt)
	defer it.Stop()
	var rows []*spanner.Row
	for {
		row, err := it.Next()
		if err == iterator.Done {
			return rows
		}
		if err != nil {
			t.Fatalf("%s: %v", stmt.SQL, err)
		}
		rows = append(rows, row)
	}
}

package pgxtypes_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/pgxtypes"
	"github.com/idkit-go/idkit/types"
)

// These tests pin how pgx v5 (not database/sql) treats the idkit types, with
// and without Register. Without it pgx has no codec for them: it finds that
// they implement driver.Valuer and sql.Scanner and goes through Value and
// Scan. pgx changed that path before (jackc/pgx#1319, #1445, #1601), so
// every query execution mode is checked against the rows stored, read back
// with SQL, not with idkit.

var execModes = []pgx.QueryExecMode{
	pgx.QueryExecModeCacheStatement, // the default
	pgx.QueryExecModeCacheDescribe,
	pgx.QueryExecModeDescribeExec,
	pgx.QueryExecModeExec,
	pgx.QueryExecModeSimpleProtocol,
}

func connect(t testing.TB, mode pgx.QueryExecMode, register bool) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(testdb.PostgresDSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		testdb.Unavailable(t, "PostgreSQL", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if register {
		pgxtypes.Register(conn.TypeMap())
	}
	return conn
}

// createTable makes a table of its own for t: a bytea ObjectID key, a bigint
// Snowflake and a nullable column of each.
func createTable(t testing.TB, conn *pgx.Conn) string {
	t.Helper()
	table := testdb.Name("idkit_pgx")
	ctx := context.Background()
	_, err := conn.Exec(ctx, `CREATE TABLE `+table+` (
		id     bytea  PRIMARY KEY,
		sid    bigint NOT NULL UNIQUE,
		parent bytea  NULL,
		ref    bigint NULL)`)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Exec(context.Background(), "DROP TABLE IF EXISTS "+table) })
	return table
}

// stored is one row as PostgreSQL shows it: hex of the bytea columns and
// decimal text of the bigint ones, "NULL" for NULL.
type stored struct{ id, sid, parent, ref string }

func readStored(t testing.TB, conn *pgx.Conn, table string, id types.ObjectID) stored {
	t.Helper()
	var s stored
	err := conn.QueryRow(context.Background(), `SELECT encode(id, 'hex'), sid::text,
		coalesce(encode(parent, 'hex'), 'NULL'), coalesce(ref::text, 'NULL')
		FROM `+table+` WHERE encode(id, 'hex') = '`+id.Hex()+`'`,
		pgx.QueryExecModeSimpleProtocol).Scan(&s.id, &s.sid, &s.parent, &s.ref)
	if err != nil {
		t.Fatalf("read row %s: %v", id.Hex(), err)
	}
	return s
}

func newSnowflake(t testing.TB) *generator.Snowflake {
	t.Helper()
	g, err := generator.NewSnowflake(7)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestArgsAndScanEveryExecMode(t *testing.T) {
	sf := newSnowflake(t)
	for _, mode := range execModes {
		for _, register := range []bool{false, true} {
			name := mode.String()
			if register {
				name += "/registered"
			}
			t.Run(name, func(t *testing.T) { testArgsAndScan(t, sf, mode, register) })
		}
	}
}

// typesUnknown reports whether pgx encodes arguments in mode without asking
// the server for their types: then a slice of an unregistered type has no
// encode plan.
func typesUnknown(mode pgx.QueryExecMode) bool {
	return mode == pgx.QueryExecModeExec || mode == pgx.QueryExecModeSimpleProtocol
}

func testArgsAndScan(t *testing.T, sf *generator.Snowflake, mode pgx.QueryExecMode, register bool) {
	conn := connect(t, mode, register)
	table := createTable(t, conn)
	ctx := context.Background()

	// A row with both nullable columns set, one with both NULL
	// (through the Null forms and through nil pointers).
	parent, child, orphan := types.NewObjectID(), types.NewObjectID(), types.NewObjectID()
	psid, csid, osid := sf.MustNext(), sf.MustNext(), sf.MustNext()
	ins := `INSERT INTO ` + table + ` (id, sid, parent, ref) VALUES ($1, $2, $3, $4)`
	if _, err := conn.Exec(ctx, ins, parent, psid, types.NullObjectID{}, types.NullSnowflake{}); err != nil {
		t.Fatalf("insert with Null forms not valid: %v", err)
	}
	if _, err := conn.Exec(ctx, ins, child, csid, types.NullObjectID{ID: parent, Valid: true}, types.NullSnowflake{ID: psid, Valid: true}); err != nil {
		t.Fatalf("insert with Null forms valid: %v", err)
	}
	if _, err := conn.Exec(ctx, ins, &orphan, &osid, (*types.ObjectID)(nil), (*types.Snowflake)(nil)); err != nil {
		t.Fatalf("insert with pointers: %v", err)
	}

	if got, want := readStored(t, conn, table, parent), (stored{parent.Hex(), psid.String(), "NULL", "NULL"}); got != want {
		t.Errorf("parent row stored %+v, want %+v", got, want)
	}
	if got, want := readStored(t, conn, table, child), (stored{child.Hex(), csid.String(), parent.Hex(), psid.String()}); got != want {
		t.Errorf("child row stored %+v, want %+v", got, want)
	}
	if got, want := readStored(t, conn, table, orphan), (stored{orphan.Hex(), osid.String(), "NULL", "NULL"}); got != want {
		t.Errorf("orphan row stored %+v, want %+v", got, want)
	}

	// Scan into the value types, the Null forms and pointers.
	sel := `SELECT id, sid, parent, ref FROM ` + table + ` WHERE id = $1`
	var (
		id  types.ObjectID
		sid types.Snowflake
		np  types.NullObjectID
		nr  types.NullSnowflake
	)
	if err := conn.QueryRow(ctx, sel, child).Scan(&id, &sid, &np, &nr); err != nil {
		t.Fatal(err)
	}
	if id != child || sid != csid || np != (types.NullObjectID{ID: parent, Valid: true}) || nr != (types.NullSnowflake{ID: psid, Valid: true}) {
		t.Errorf("child scanned %v %v %+v %+v", id, sid, np, nr)
	}
	np, nr = types.NullObjectID{ID: child, Valid: true}, types.NullSnowflake{ID: csid, Valid: true} // NULL must reset them
	if err := conn.QueryRow(ctx, sel, parent).Scan(&id, &sid, &np, &nr); err != nil {
		t.Fatal(err)
	}
	if id != parent || sid != psid || np.Valid || nr.Valid {
		t.Errorf("parent scanned %v %v %+v %+v, want NULLs not valid", id, sid, np, nr)
	}
	pp, pr := &parent, &psid
	if err := conn.QueryRow(ctx, `SELECT parent, ref FROM `+table+` WHERE sid = $1`, osid).Scan(&pp, &pr); err != nil {
		t.Fatal(err)
	}
	if pp != nil || pr != nil {
		t.Errorf("NULL into **ObjectID, **Snowflake gave %v, %v; want nil", pp, pr)
	}

	// NULL into a non-null type: an error that errors.Is types.ErrNull,
	// and the target is left as it was.
	keep := child
	err := conn.QueryRow(ctx, `SELECT parent FROM `+table+` WHERE id = $1`, parent).Scan(&keep)
	if !errors.Is(err, types.ErrNull) || !errors.Is(err, types.ErrInvalidObjectID) {
		t.Errorf("NULL into ObjectID: err = %v, want ErrNull and ErrInvalidObjectID", err)
	}
	keepSID := csid
	err = conn.QueryRow(ctx, `SELECT ref FROM `+table+` WHERE id = $1`, parent).Scan(&keepSID)
	if !errors.Is(err, types.ErrNull) || !errors.Is(err, types.ErrInvalidSnowflake) {
		t.Errorf("NULL into Snowflake: err = %v, want ErrNull and ErrInvalidSnowflake", err)
	}
	if keep != child || keepSID != csid {
		t.Errorf("failed scans changed their targets: %v %v", keep, keepSID)
	}

	// Arrays: = ANY($1) with slices of the ID types, and array_agg
	// scanned into slices. Without Register, the modes that do not
	// describe the statement cannot encode the slices.
	var n int
	if typesUnknown(mode) && !register {
		for _, arg := range []any{[]types.ObjectID{parent}, []types.Snowflake{psid}, []types.NullObjectID{{}}, []types.NullSnowflake{{}}} {
			err := conn.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE id = ANY($1)`, arg).Scan(&n)
			if err == nil || !strings.Contains(err.Error(), "cannot find encode plan") {
				t.Errorf("%T without Register in mode %v: err = %v; pgx changed, update pgxtypes' doc", arg, mode, err)
			}
		}
		return
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE parent = ANY($1) OR ref = ANY($2)`,
		[]types.NullObjectID{types.NullObjectID{ID: parent, Valid: true}, {}}, []types.NullSnowflake{{}}).Scan(&n); err != nil || n != 1 {
		t.Errorf("parent = ANY([]NullObjectID) OR ref = ANY([]NullSnowflake): %d rows, %v; want 1", n, err)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE id = ANY($1)`,
		[]types.ObjectID{parent, orphan, types.NewObjectID()}).Scan(&n); err != nil || n != 2 {
		t.Errorf("id = ANY([]ObjectID): %d rows, %v; want 2", n, err)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE sid = ANY($1)`,
		[]types.Snowflake{csid, osid}).Scan(&n); err != nil || n != 2 {
		t.Errorf("sid = ANY([]Snowflake): %d rows, %v; want 2", n, err)
	}
	var ids []types.ObjectID
	var sids []types.Snowflake
	var parents []types.NullObjectID
	if err := conn.QueryRow(ctx, `SELECT array_agg(id ORDER BY sid), array_agg(sid ORDER BY sid),
				array_agg(parent ORDER BY sid) FROM `+table).Scan(&ids, &sids, &parents); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ids) != fmt.Sprint([]types.ObjectID{parent, child, orphan}) ||
		fmt.Sprint(sids) != fmt.Sprint([]types.Snowflake{psid, csid, osid}) ||
		fmt.Sprint(parents) != fmt.Sprint([]types.NullObjectID{{}, types.NullObjectID{ID: parent, Valid: true}, {}}) {
		t.Errorf("array_agg scanned %v %v %v", ids, sids, parents)
	}
}

// TestCopyFrom writes rows with CopyFrom (binary COPY) and checks them.
func TestCopyFrom(t *testing.T) {
	conn := connect(t, pgx.QueryExecModeCacheStatement, false)
	table := createTable(t, conn)
	ctx := context.Background()
	sf := newSnowflake(t)

	const rows = 500
	ids := make([]types.ObjectID, rows)
	sids := make([]types.Snowflake, rows)
	src := make([][]any, rows)
	for i := range src {
		ids[i], sids[i] = types.NewObjectID(), sf.MustNext()
		var parent types.NullObjectID
		var ref types.NullSnowflake
		if i > 0 && i%2 == 0 {
			parent, ref = types.NullObjectID{ID: ids[i-1], Valid: true}, types.NullSnowflake{ID: sids[i-1], Valid: true}
		}
		src[i] = []any{ids[i], sids[i], parent, ref}
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{table}, []string{"id", "sid", "parent", "ref"}, pgx.CopyFromRows(src))
	if err != nil || n != rows {
		t.Fatalf("CopyFrom = %d, %v; want %d", n, err, rows)
	}
	for _, i := range []int{0, 1, 2, rows - 1} {
		want := stored{ids[i].Hex(), sids[i].String(), "NULL", "NULL"}
		if i > 0 && i%2 == 0 {
			want.parent, want.ref = ids[i-1].Hex(), sids[i-1].String()
		}
		if got := readStored(t, conn, table, ids[i]); got != want {
			t.Errorf("row %d stored %+v, want %+v", i, got, want)
		}
	}
	var nulls, distinct int
	if err := conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE parent IS NULL), count(DISTINCT id) FROM `+table).Scan(&nulls, &distinct); err != nil {
		t.Fatal(err)
	}
	if nulls != rows/2+1 || distinct != rows {
		t.Errorf("%d NULL parents and %d distinct keys, want %d and %d", nulls, distinct, rows/2+1, rows)
	}
}

// TestPool goes through pgxpool: a Batch, pgx.CollectRows into a struct with
// idkit fields and = ANY($1), in the default mode and in the simple protocol
// with Register in AfterConnect.
func TestPool(t *testing.T) {
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		t.Run(mode.String(), func(t *testing.T) { testPool(t, mode) })
	}
}

func testPool(t *testing.T, mode pgx.QueryExecMode) {
	conn := connect(t, pgx.QueryExecModeCacheStatement, false) // for setup and checks
	table := createTable(t, conn)
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(testdb.PostgresDSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.DefaultQueryExecMode = mode
	cfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error {
		pgxtypes.Register(c.TypeMap())
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	sf := newSnowflake(t)

	parent, psid := types.NewObjectID(), sf.MustNext()
	b := &pgx.Batch{}
	ins := `INSERT INTO ` + table + ` (id, sid, parent, ref) VALUES ($1, $2, $3, $4)`
	b.Queue(ins, parent, psid, nil, nil)
	var kids []types.ObjectID
	for i := range 3 {
		kids = append(kids, types.NewObjectID())
		b.Queue(ins, kids[i], sf.MustNext(), types.NullObjectID{ID: parent, Valid: true}, types.NullSnowflake{ID: psid, Valid: true})
	}
	if err := pool.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}

	type Row struct {
		ID     types.ObjectID
		SID    types.Snowflake
		Parent types.NullObjectID
		Ref    types.NullSnowflake
	}
	rows, _ := pool.Query(ctx, `SELECT id, sid, parent, ref FROM `+table+` WHERE id = ANY($1) ORDER BY sid`, kids)
	got, err := pgx.CollectRows(rows, pgx.RowToStructByName[Row])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d children, want 3", len(got))
	}
	for i, r := range got {
		if r.ID != kids[i] || r.Parent != (types.NullObjectID{ID: parent, Valid: true}) || r.Ref != (types.NullSnowflake{ID: psid, Valid: true}) {
			t.Errorf("child %d = %+v", i, r)
		}
		if s := readStored(t, conn, table, kids[i]); s.parent != parent.Hex() || s.sid != r.SID.String() {
			t.Errorf("child %d stored %+v", i, s)
		}
	}
	var sid types.Snowflake
	if err := pool.QueryRow(ctx, `SELECT sid FROM `+table+` WHERE id = $1`, parent).Scan(&sid); err != nil || sid != psid {
		t.Errorf("pool QueryRow = %v, %v; want %v", sid, err, psid)
	}
}

// TestBadColumnValues checks what a scan of a value that is no ID does: an
// error wrapping the sentinel, never a panic.
func TestBadColumnValues(t *testing.T) {
	for _, register := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "registered"}[register], func(t *testing.T) { testBadColumnValues(t, register) })
	}
}

func testBadColumnValues(t *testing.T, register bool) {
	conn := connect(t, pgx.QueryExecModeCacheStatement, register)
	ctx := context.Background()
	var id types.ObjectID
	err := conn.QueryRow(ctx, `SELECT '\x0102'::bytea`).Scan(&id)
	if !errors.Is(err, types.ErrInvalidObjectID) {
		t.Errorf("2-byte bytea into ObjectID: %v, want ErrInvalidObjectID", err)
	}
	var sid types.Snowflake
	err = conn.QueryRow(ctx, `SELECT -5::bigint`).Scan(&sid)
	if !errors.Is(err, types.ErrInvalidSnowflake) || !strings.Contains(err.Error(), "negative") || sid != 0 {
		t.Errorf("negative bigint into Snowflake: %v, %v; want ErrInvalidSnowflake saying negative, s unchanged", sid, err)
	}
	var nsid types.NullSnowflake
	err = conn.QueryRow(ctx, `SELECT -5::bigint`).Scan(&nsid)
	if !errors.Is(err, types.ErrInvalidSnowflake) || !strings.Contains(err.Error(), "negative") || nsid.Valid {
		t.Errorf("negative bigint into NullSnowflake: %v, %v; want ErrInvalidSnowflake saying negative", nsid, err)
	}
	// A hex text column scans into ObjectID (24 hex digits), a numeric text
	// into Snowflake.
	want := types.NewObjectID()
	if err := conn.QueryRow(ctx, `SELECT $1::text`, want.Hex()).Scan(&id); err != nil || id != want {
		t.Errorf("hex text into ObjectID = %v, %v", id, err)
	}
	if err := conn.QueryRow(ctx, `SELECT '123'::text`).Scan(&sid); err != nil || sid != 123 {
		t.Errorf("text into Snowflake = %v, %v", sid, err)
	}
}

// TestRegisterKeepsOtherTypes checks that the codecs Register installs for
// bytea and int8 leave every other Go type as pgx handles it.
func TestRegisterKeepsOtherTypes(t *testing.T) {
	conn := connect(t, pgx.QueryExecModeCacheStatement, true)
	ctx := context.Background()
	var (
		b   []byte
		i   int64
		pi  *int64
		is  []int64
		bs  [][]byte
		str string
	)
	err := conn.QueryRow(ctx, `SELECT $1::bytea, $2::int8, NULL::int8, $3::int8[], $4::bytea[], $2::int8::text`,
		[]byte{1, 2, 3}, int64(-42), []int64{5, -6}, [][]byte{{7}, nil}).Scan(&b, &i, &pi, &is, &bs, &str)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintln(b, i, pi, is, bs, str) != "[1 2 3] -42 <nil> [5 -6] [[7] []] -42\n" {
		t.Errorf("scanned %v %v %v %v %v %v", b, i, pi, is, bs, str)
	}
	var nb []byte
	if err := conn.QueryRow(ctx, `SELECT NULL::bytea`).Scan(&nb); err != nil || nb != nil {
		t.Errorf("NULL bytea = %v, %v", nb, err)
	}
}

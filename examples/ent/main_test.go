package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"

	"github.com/idkit-go/idkit/examples/ent/ent"
	"github.com/idkit-go/idkit/examples/ent/ent/author"
	"github.com/idkit-go/idkit/examples/ent/ent/book"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

func TestMainRuns(t *testing.T) { main() }

func TestSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	client, err := openSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testClient(t, client, db, "hex(%s)")
}

func TestPostgres(t *testing.T) {
	admin := testdb.Postgres(t)
	ns := testdb.Name("idkit_ent")
	if _, err := admin.Exec("CREATE SCHEMA " + ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec("DROP SCHEMA " + ns + " CASCADE") })
	db, err := sql.Open("pgx", testdb.PostgresDSN()+" search_path="+ns)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	client := ent.NewClient(ent.Driver(entsql.OpenDB(dialect.Postgres, db)))
	if err := client.Schema.Create(context.Background()); err != nil {
		t.Fatal(err)
	}
	testClient(t, client, db, "encode(%s, 'hex')")
}

func TestMariaDB(t *testing.T) {
	admin := testdb.MySQL(t)
	ns := testdb.Name("idkit_ent")
	if _, err := admin.Exec("CREATE DATABASE " + ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec("DROP DATABASE " + ns) })
	cfg, err := mysql.ParseDSN(testdb.MySQLDSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = ns
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	client := ent.NewClient(ent.Driver(entsql.OpenDB(dialect.MySQL, db)))
	if err := client.Schema.Create(context.Background()); err != nil {
		t.Fatal(err)
	}
	testClient(t, client, db, "hex(%s)")
}

// testClient creates entities through the generated client and checks the
// rows with SQL on db. hexExpr renders a bytea/blob column as hex.
func testClient(t *testing.T, client *ent.Client, db *sql.DB, hexExpr string) {
	ctx := context.Background()
	hex := func(col string) string { return "lower(" + fmt.Sprintf(hexExpr, col) + ")" }

	// Keys come from the schema's defaults: an ObjectID and a Snowflake.
	ann, err := client.Author.Create().SetName("Ann").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ed, err := client.Author.Create().SetName("Ed").Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ann.ID.IsZero() || ed.ID.IsZero() || ann.ID == ed.ID {
		t.Fatalf("author keys %v, %v", ann.ID, ed.ID)
	}
	b1, err := client.Book.Create().SetTitle("one").SetAuthor(ann).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := client.Book.Create().SetTitle("two").SetAuthorID(ann.ID).SetEditorID(types.NullObjectID{ID: ed.ID, Valid: true}).Save(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b1.ID <= 0 || b2.ID <= b1.ID {
		t.Errorf("book keys %v, %v: want positive and rising", b1.ID, b2.ID)
	}
	// A key set by the caller is kept.
	mine := types.NewObjectID()
	if a, err := client.Author.Create().SetID(mine).SetName("Mo").Save(ctx); err != nil || a.ID != mine {
		t.Errorf("create with SetID = %v, %v; want %v", a.ID, err, mine)
	}

	// The rows as stored (SQLite's hex(NULL) is '', hence the nullif).
	rows, err := db.QueryContext(ctx, "SELECT "+hex("id")+", name FROM authors ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			t.Fatal(err)
		}
		got = append(got, name+"="+id)
	}
	rows.Close()
	if want := []string{"Ann=" + ann.ID.Hex(), "Ed=" + ed.ID.Hex(), "Mo=" + mine.Hex()}; fmt.Sprintf("%v", got) != fmt.Sprintf("%v", want) {
		t.Errorf("authors stored %v, want %v", got, want)
	}
	var gotAuthor, gotEditor string
	for _, c := range []struct {
		id             types.Snowflake
		author, editor string
	}{{b1.ID, ann.ID.Hex(), "NULL"}, {b2.ID, ann.ID.Hex(), ed.ID.Hex()}} {
		err := db.QueryRowContext(ctx, "SELECT "+hex("author_id")+", coalesce(nullif("+hex("editor_id")+", ''), 'NULL') FROM books WHERE id = "+c.id.String()).Scan(&gotAuthor, &gotEditor)
		if err != nil || gotAuthor != c.author || gotEditor != c.editor {
			t.Errorf("book %v stored author %s editor %s, %v; want %s %s", c.id, gotAuthor, gotEditor, err, c.author, c.editor)
		}
	}

	// The edge both ways, keyed by the parent's ObjectID.
	books, err := client.Author.Query().Where(author.ID(ann.ID)).QueryBooks().Order(ent.Asc(book.FieldID)).All(ctx)
	if err != nil || len(books) != 2 || books[0].ID != b1.ID || books[1].ID != b2.ID {
		t.Errorf("Ann's books = %v, %v", books, err)
	}
	owner, err := client.Book.Query().Where(book.ID(b2.ID)).QueryAuthor().Only(ctx)
	if err != nil || owner.ID != ann.ID {
		t.Errorf("book two's author = %v, %v", owner, err)
	}
	got2, err := client.Book.Get(ctx, b2.ID)
	if err != nil || got2.EditorID != (types.NullObjectID{ID: ed.ID, Valid: true}) || got2.AuthorID != ann.ID {
		t.Errorf("Get(book two) = %+v, %v", got2, err)
	}
	if got1, err := client.Book.Get(ctx, b1.ID); err != nil || got1.EditorID.Valid {
		t.Errorf("Get(book one) = %+v, %v; want editor not valid", got1, err)
	}

	// A book for an author that does not exist is refused by the foreign key.
	var before, after int
	db.QueryRowContext(ctx, "SELECT count(*) FROM books").Scan(&before)
	if _, err := client.Book.Create().SetTitle("x").SetAuthorID(types.NewObjectID()).Save(ctx); err == nil {
		t.Error("book with an unknown author was stored")
	}
	db.QueryRowContext(ctx, "SELECT count(*) FROM books").Scan(&after)
	if before != 2 || after != before {
		t.Errorf("books: %d before, %d after a refused create", before, after)
	}
}

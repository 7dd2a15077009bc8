// Package sqlc_test runs the code sqlc generated from postgres/ and mysql/
// (each with its sqlc.yaml overrides mapping key columns to idkit types)
// against the real servers, and checks the stored rows with plain SQL.
package sqlc_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idkit-go/idkit/examples/sqlc/mysql/mydb"
	"github.com/idkit-go/idkit/examples/sqlc/postgres/pgdb"
	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

func snowflakes(t *testing.T) *generator.Snowflake {
	t.Helper()
	g, err := generator.NewSnowflake(3)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func schema(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPostgres runs pgdb (sql_package pgx/v5) in a schema of its own.
func TestPostgres(t *testing.T) {
	ctx := context.Background()
	admin := testdb.Postgres(t)
	ns := testdb.Name("idkit_sqlc")
	if _, err := admin.Exec("CREATE SCHEMA " + ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec("DROP SCHEMA " + ns + " CASCADE") })

	cfg, err := pgxpool.ParseConfig(testdb.PostgresDSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = ns
	setup, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close(ctx)
	if _, err := setup.Exec(ctx, schema(t, "postgres/schema.sql")); err != nil {
		t.Fatal(err)
	}
	// pgx learns the domains (and their array types) once per connection.
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		dts, err := conn.LoadTypes(ctx, []string{"objectid", "_objectid", "snowflake", "_snowflake"})
		if err != nil {
			return err
		}
		conn.TypeMap().RegisterTypes(dts)
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	q := pgdb.New(pool)
	sf := snowflakes(t)
	author, editor := types.NewObjectID(), types.NewObjectID()
	for _, a := range []pgdb.CreateAuthorParams{{ID: author, Name: "Ann"}, {ID: editor, Name: "Ed"}} {
		if err := q.CreateAuthor(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	b1 := pgdb.CreateBookParams{ID: sf.MustNext(), AuthorID: author, Title: "one"}
	b2 := pgdb.CreateBookParams{ID: sf.MustNext(), AuthorID: author, EditorID: types.NullObjectID{ID: editor, Valid: true},
		SeriesID: types.NullSnowflake{ID: b1.ID, Valid: true}, Title: "two"}
	for _, b := range []pgdb.CreateBookParams{b1, b2} {
		if err := q.CreateBook(ctx, b); err != nil {
			t.Fatal(err)
		}
	}

	// The stored rows, read with SQL.
	var hexAuthor, hexEditor, seriesText string
	err = pool.QueryRow(ctx, `SELECT encode(author_id, 'hex'), coalesce(encode(editor_id, 'hex'), 'NULL'),
		coalesce(series_id::text, 'NULL') FROM books WHERE id::text = $1`, b2.ID.String()).Scan(&hexAuthor, &hexEditor, &seriesText)
	if err != nil {
		t.Fatal(err)
	}
	if hexAuthor != author.Hex() || hexEditor != editor.Hex() || seriesText != b1.ID.String() {
		t.Errorf("book two stored %s %s %s", hexAuthor, hexEditor, seriesText)
	}
	err = pool.QueryRow(ctx, `SELECT coalesce(encode(editor_id, 'hex'), 'NULL'), coalesce(series_id::text, 'NULL')
		FROM books WHERE id::text = $1`, b1.ID.String()).Scan(&hexEditor, &seriesText)
	if err != nil || hexEditor != "NULL" || seriesText != "NULL" {
		t.Errorf("book one stored %s %s, %v; want NULL NULL", hexEditor, seriesText, err)
	}

	// The generated reads.
	a, err := q.GetAuthor(ctx, author)
	if err != nil || a.ID != author || a.Name != "Ann" {
		t.Errorf("GetAuthor = %+v, %v", a, err)
	}
	got, err := q.GetBook(ctx, b1.ID)
	if err != nil || got != (pgdb.Book{ID: b1.ID, AuthorID: author, Title: "one"}) {
		t.Errorf("GetBook(one) = %+v, %v", got, err)
	}
	books, err := q.ListBooksByAuthor(ctx, author)
	if err != nil || len(books) != 2 || books[0].ID != b1.ID || books[1] != (pgdb.Book(b2)) {
		t.Errorf("ListBooksByAuthor = %+v, %v", books, err)
	}
	books, err = q.ListBooksByIDs(ctx, []types.Snowflake{b2.ID, sf.MustNext()})
	if err != nil || len(books) != 1 || books[0].ID != b2.ID {
		t.Errorf("ListBooksByIDs = %+v, %v", books, err)
	}
	if err := q.SetEditor(ctx, pgdb.SetEditorParams{ID: b2.ID, EditorID: types.NullObjectID{}}); err != nil {
		t.Fatal(err)
	}
	if got, err := q.GetBook(ctx, b2.ID); err != nil || got.EditorID.Valid {
		t.Errorf("after SetEditor(NULL): %+v, %v", got, err)
	}

	// A dangling foreign key is refused by the database and stores nothing.
	err = q.CreateBook(ctx, pgdb.CreateBookParams{ID: sf.MustNext(), AuthorID: types.NewObjectID(), Title: "x"})
	if err == nil {
		t.Error("book with unknown author stored")
	}
}

// TestMariaDB runs mydb (database/sql, go-sql-driver/mysql) in a database of
// its own.
func TestMariaDB(t *testing.T) {
	ctx := context.Background()
	admin := testdb.MySQL(t)
	name := testdb.Name("idkit_sqlc")
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec("DROP DATABASE " + name) })
	cfg, err := mysql.ParseDSN(testdb.MySQLDSN())
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = name
	cfg.MultiStatements = true
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, schema(t, "mysql/schema.sql")); err != nil {
		t.Fatal(err)
	}

	q := mydb.New(db)
	sf := snowflakes(t)
	author, editor := types.NewObjectID(), types.NewObjectID()
	for _, a := range []mydb.CreateAuthorParams{{ID: author, Name: "Ann"}, {ID: editor, Name: "Ed"}} {
		if err := q.CreateAuthor(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	b1 := mydb.CreateBookParams{ID: sf.MustNext(), AuthorID: author, Title: "one"}
	b2 := mydb.CreateBookParams{ID: sf.MustNext(), AuthorID: author, EditorID: types.NullObjectID{ID: editor, Valid: true},
		SeriesID: types.NullSnowflake{ID: b1.ID, Valid: true}, Title: "two"}
	for _, b := range []mydb.CreateBookParams{b1, b2} {
		if err := q.CreateBook(ctx, b); err != nil {
			t.Fatal(err)
		}
	}

	var hexAuthor, hexEditor, seriesText string
	err = db.QueryRowContext(ctx, `SELECT LOWER(HEX(author_id)), COALESCE(LOWER(HEX(editor_id)), 'NULL'),
		COALESCE(CAST(series_id AS CHAR), 'NULL') FROM books WHERE CAST(id AS CHAR) = ?`, b2.ID.String()).Scan(&hexAuthor, &hexEditor, &seriesText)
	if err != nil {
		t.Fatal(err)
	}
	if hexAuthor != author.Hex() || hexEditor != editor.Hex() || seriesText != b1.ID.String() {
		t.Errorf("book two stored %s %s %s", hexAuthor, hexEditor, seriesText)
	}
	err = db.QueryRowContext(ctx, `SELECT COALESCE(LOWER(HEX(editor_id)), 'NULL'), COALESCE(CAST(series_id AS CHAR), 'NULL')
		FROM books WHERE CAST(id AS CHAR) = ?`, b1.ID.String()).Scan(&hexEditor, &seriesText)
	if err != nil || hexEditor != "NULL" || seriesText != "NULL" {
		t.Errorf("book one stored %s %s, %v; want NULL NULL", hexEditor, seriesText, err)
	}

	a, err := q.GetAuthor(ctx, author)
	if err != nil || a.ID != author || a.Name != "Ann" {
		t.Errorf("GetAuthor = %+v, %v", a, err)
	}
	got, err := q.GetBook(ctx, b1.ID)
	if err != nil || got != (mydb.Book{ID: b1.ID, AuthorID: author, Title: "one"}) {
		t.Errorf("GetBook(one) = %+v, %v", got, err)
	}
	books, err := q.ListBooksByAuthor(ctx, author)
	if err != nil || len(books) != 2 || books[0].ID != b1.ID || books[1] != (mydb.Book(b2)) {
		t.Errorf("ListBooksByAuthor = %+v, %v", books, err)
	}
	books, err = q.ListBooksByIDs(ctx, []types.Snowflake{b2.ID, b1.ID, sf.MustNext()})
	if err != nil || !slices.EqualFunc(books, []mydb.Book{mydb.Book(b1), mydb.Book(b2)}, func(x, y mydb.Book) bool { return x == y }) {
		t.Errorf("ListBooksByIDs = %+v, %v", books, err)
	}
	if err := q.SetEditor(ctx, mydb.SetEditorParams{ID: b2.ID, EditorID: types.NullObjectID{}}); err != nil {
		t.Fatal(err)
	}
	if got, err := q.GetBook(ctx, b2.ID); err != nil || got.EditorID.Valid {
		t.Errorf("after SetEditor(NULL): %+v, %v", got, err)
	}
	err = q.CreateBook(ctx, mydb.CreateBookParams{ID: sf.MustNext(), AuthorID: types.NewObjectID(), Title: "x"})
	if err == nil {
		t.Error("book with unknown author stored")
	}
	_, err = q.GetBook(ctx, sf.MustNext())
	if !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("GetBook(unknown) err = %v, want sql.ErrNoRows", err)
	}
}

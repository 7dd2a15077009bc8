// Command ent shows ent entities keyed by idkit IDs: authors keyed by an
// ObjectID and books keyed by a Snowflake, both made by idkit generators
// through the schema's defaults, and a book's author edge stored as the
// author's ObjectID. It runs on embedded SQLite (pure Go, no C compiler):
//
//	go run ./examples/ent
//
// The ent code in ./ent is generated from ./ent/schema by go generate.
package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	_ "modernc.org/sqlite" // registers "sqlite"

	"github.com/idkit-go/idkit/examples/ent/ent"
	"github.com/idkit-go/idkit/examples/ent/ent/author"
)

func main() {
	dir, err := os.MkdirTemp("", "idkit-ent-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	client, err := openSQLite(filepath.Join(dir, "example.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	if err := run(context.Background(), client); err != nil {
		log.Fatal(err)
	}
}

// openSQLite opens an ent client on a SQLite file through the pure-Go
// modernc.org/sqlite driver, with foreign keys on, and creates the schema.
func openSQLite(path string) (*ent.Client, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	if err != nil {
		return nil, err
	}
	client := ent.NewClient(ent.Driver(entsql.OpenDB(dialect.SQLite, db)))
	if err := client.Schema.Create(context.Background()); err != nil {
		client.Close()
		return nil, err
	}
	return client, nil
}

func run(ctx context.Context, client *ent.Client) error {
	a, err := client.Author.Create().SetName("Ann").Save(ctx)
	if err != nil {
		return err
	}
	b, err := client.Book.Create().SetTitle("First").SetAuthor(a).Save(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("author %s made at %s\n", a.ID, a.ID.Timestamp().UTC().Format("2006-01-02"))
	fmt.Printf("book   %s by author %s\n", b.ID, b.AuthorID)
	n, err := client.Author.Query().Where(author.ID(a.ID)).QueryBooks().Count(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("books by %s: %d\n", a.ID, n)
	return nil
}

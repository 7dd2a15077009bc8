// Command quickstart makes rows keyed by Snowflake and ObjectID in an embedded
// SQLite database, reads them back and prints each ID decoded into its parts.
// It needs no setup:
//
//	go run ./examples/quickstart
package main

import (
	"database/sql"
	"fmt"
	"log"

	_ "github.com/mattn/go-sqlite3"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	db, err := sql.Open("sqlite3", "file:quickstart?mode=memory&cache=shared")
	if err != nil {
		return err
	}
	defer db.Close()

	// Keys are made here, before the INSERT, the way MongoDB drivers make _id.
	// The node ID must be unique among live processes; see generator's node
	// sources for leases that guarantee it across machines.
	orders, err := generator.NewSnowflake(1, generator.WithLayout(generator.Twitter))
	if err != nil {
		return err
	}

	if _, err := db.Exec(`
		CREATE TABLE orders (id BIGINT PRIMARY KEY, item TEXT NOT NULL);
		CREATE TABLE events (id BLOB PRIMARY KEY, name TEXT NOT NULL, order_id BIGINT REFERENCES orders(id));`); err != nil {
		return err
	}
	for _, item := range []string{"book", "pen", "lamp"} {
		id, err := orders.Next()
		if err != nil {
			return err
		}
		if _, err := db.Exec(`INSERT INTO orders (id, item) VALUES (?, ?)`, id, item); err != nil {
			return err
		}
		// The key is known before the write, so related rows need no round trip.
		if _, err := db.Exec(`INSERT INTO events (id, name, order_id) VALUES (?, ?, ?)`, types.NewObjectID(), "ordered "+item, id); err != nil {
			return err
		}
	}

	fmt.Println("orders (Snowflake, Twitter layout):")
	rows, err := db.Query(`SELECT id, item FROM orders ORDER BY id`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id types.Snowflake
		var item string
		if err := rows.Scan(&id, &item); err != nil {
			return err
		}
		p, err := generator.Twitter.Decompose(id)
		if err != nil {
			return err
		}
		fmt.Printf("  %-20s %-5s time=%s node=%d sequence=%d\n", id, item, p.Time.Format("2006-01-02T15:04:05.000Z07:00"), p.Node, p.Sequence)
	}
	if err := rows.Err(); err != nil {
		return err
	}

	fmt.Println("events (ObjectID):")
	rows, err = db.Query(`SELECT id, name, order_id FROM events ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id types.ObjectID
		var name string
		var order types.Snowflake
		if err := rows.Scan(&id, &name, &order); err != nil {
			return err
		}
		fmt.Printf("  %s %-13s time=%s process=%x counter=%d order=%s\n",
			id, name, id.Timestamp().Format("2006-01-02T15:04:05Z07:00"), id.ProcessUnique(), id.Counter(), order)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return nil
}

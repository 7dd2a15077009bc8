package segment_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite"

	"github.com/idkit-go/idkit/generator/segment"
)

func Example() {
	dir, _ := os.MkdirTemp("", "segment")
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", filepath.Join(dir, "ids.db"))
	if err != nil {
		panic(err)
	}
	defer db.Close()

	ctx := context.Background()
	a, err := segment.New(ctx, db, "orders", segment.Options{Step: 100})
	if err != nil {
		panic(err)
	}
	for range 3 {
		id, _ := a.Next(ctx)
		fmt.Println(id)
	}
	a.Close()

	// A restart skips the rest of the old segment, never reissues it.
	b, _ := segment.New(ctx, db, "orders", segment.Options{Step: 100})
	defer b.Close()
	id, _ := b.Next(ctx)
	fmt.Println(id)
	// Output:
	// 1
	// 2
	// 3
	// 101
}

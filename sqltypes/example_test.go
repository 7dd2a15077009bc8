package sqltypes_test

import (
	"fmt"
	"time"

	"github.com/idkit-go/idkit/dialect"
	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// The rows created on 1 March 2024 (UTC), as a primary-key range over a raw
// 12-byte ObjectID column, whose type on PostgreSQL is bytea.
func Example() {
	from := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	r, err := sqltypes.NewObjectIDRange(from, from.AddDate(0, 0, 1))
	if err != nil {
		panic(err)
	}
	fmt.Println("CREATE TABLE docs (id", sqltypes.ObjectIDColumnType(dialect.Postgres), "PRIMARY KEY)")
	fmt.Println("SELECT * FROM docs WHERE id >= $1 AND id < $2")
	fmt.Println(r.From, r.To)
	fmt.Println(r.Contains(types.MustParseObjectID("65e1a6c0d65f74baeb22a2c9"))) // created 2024-03-01T09:58:24Z
	// Output:
	// CREATE TABLE docs (id bytea PRIMARY KEY)
	// SELECT * FROM docs WHERE id >= $1 AND id < $2
	// 65e11a800000000000000000 65e26c000000000000000000
	// true
}

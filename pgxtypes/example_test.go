package pgxtypes_test

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idkit-go/idkit/pgxtypes"
	"github.com/idkit-go/idkit/types"
)

// A pool registers the types on every new connection in AfterConnect. This
// example needs a PostgreSQL server, so it is compiled but not run; the same
// code runs in TestPool.
func ExampleRegister() {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig("host=127.0.0.1 user=postgres dbname=test sslmode=disable")
	if err != nil {
		panic(err)
	}
	cfg.AfterConnect = func(_ context.Context, conn *pgx.Conn) error {
		pgxtypes.Register(conn.TypeMap())
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		panic(err)
	}
	defer pool.Close()

	ids := []types.ObjectID{types.NewObjectID(), types.NewObjectID()}
	rows, _ := pool.Query(ctx, "SELECT id FROM users WHERE id = ANY($1)", ids)
	found, err := pgx.CollectRows(rows, pgx.RowTo[types.ObjectID])
	fmt.Println(len(found), err)
}

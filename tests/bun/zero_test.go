package bun_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/idkit-go/idkit/types"
)

// Plain has a key and no hook.
type Plain struct {
	bun.BaseModel `bun:"table:plain"`

	ID types.ObjectID `bun:"id,pk"`
}

func count(t *testing.T, s server, table string) int {
	t.Helper()
	var n int
	require.NoError(t, s.raw.QueryRow("SELECT COUNT(*) FROM "+table).Scan(&n))
	return n
}

func TestZeroKeys(t *testing.T) {
	servers(t, func(t *testing.T, s server) {
		ctx := context.Background()
		createKeyTables(t, s)
		mustExec(t, s.raw, "CREATE TABLE plain (id bigint)")

		// The hook refuses a zero reference, with the ID's own error, and bun
		// writes nothing: not one row of a bulk insert.
		_, err := s.db.NewInsert().Model(&Order{}).Exec(ctx)
		require.ErrorIs(t, err, types.ErrZeroID)
		orders := []Order{{Customer: objectIDs.Next()}, {}}
		_, err = s.db.NewInsert().Model(&orders).Exec(ctx)
		require.ErrorIs(t, err, types.ErrZeroID)
		require.Zero(t, count(t, s, "orders"))

		// Without a hook, bun writes Value's error into the SQL as ?!(...)
		// instead of returning it, and the database refuses the statement:
		// an error, but not one that errors.Is finds ErrZeroID in. The same
		// holds for a zero ID among a query's arguments.
		q := s.db.NewInsert().Model(&Plain{})
		require.Contains(t, q.String(), "?!(types: zero ID is not a key")
		_, err = q.Exec(ctx)
		requireRefusedByDatabase(t, err)
		require.Zero(t, count(t, s, "plain"))
		var got []Customer
		err = s.db.NewSelect().Model(&got).Where("id IN (?)", bun.List([]types.ObjectID{objectIDs.Next(), {}})).Scan(ctx)
		requireRefusedByDatabase(t, err)
		_, err = s.db.NewDelete().Model((*Order)(nil)).Where("id = ?", types.Snowflake(0)).Exec(ctx)
		requireRefusedByDatabase(t, err)
	})
}

// requireRefusedByDatabase checks that err is the database's syntax error
// at bun's ?!(...) text: bun v1.3 returns no error of its own there.
func requireRefusedByDatabase(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	require.False(t, errors.Is(err, types.ErrZeroID), "bun returns Value's error now: update docs/bun.md: %v", err)
	require.Regexp(t, `syntax|unrecognized token`, err.Error())
}

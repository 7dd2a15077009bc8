package bun_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"

	"github.com/idkit-go/idkit/types"
)

// PGUUID is a types.UUID that bun writes as uuid text, for a PostgreSQL
// uuid column; a zero PGUUID is an error, as a zero types.UUID is.
type PGUUID struct{ types.UUID }

// AppendQuery implements bun's schema.QueryAppender.
func (u PGUUID) AppendQuery(gen schema.QueryGen, b []byte) ([]byte, error) {
	if _, err := u.Value(); err != nil {
		return nil, err
	}
	return gen.Dialect().AppendString(b, u.String()), nil
}

type Session struct {
	bun.BaseModel `bun:"table:sessions"`

	ID   PGUUID  `bun:"id,pk,type:uuid"`
	Prev *PGUUID `bun:"prev_id,type:uuid"`
}

func TestPostgresUUIDColumn(t *testing.T) {
	s := postgres(t)
	ctx := context.Background()
	_, err := s.db.NewCreateTable().Model((*Session)(nil)).Exec(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"id": "uuid", "prev_id": "uuid"}, columnTypes(t, s, "sessions"))

	first := PGUUID{types.NewUUIDv7()}
	sessions := []Session{{ID: first}, {ID: PGUUID{types.NewUUIDv7()}, Prev: &first}}
	_, err = s.db.NewInsert().Model(&sessions).Exec(ctx)
	require.NoError(t, err)
	require.ElementsMatch(t, []sql.NullString{{}, {String: first.String(), Valid: true}}, rawColumn[sql.NullString](t, s, "sessions", "prev_id"))

	var got []Session
	require.NoError(t, s.db.NewSelect().Model(&got).
		Where("id IN (?)", bun.List([]PGUUID{sessions[0].ID, sessions[1].ID})).Order("id").Scan(ctx))
	require.Equal(t, sessions, got)

	_, err = s.db.NewInsert().Model(&Session{}).Exec(ctx)
	requireRefusedByDatabase(t, err)
}

// A types.UUID in a uuid column fails with bun: bun writes its Value, the
// 16 bytes, as a bytea literal, which PostgreSQL's uuid refuses.
func TestPostgresUUIDColumnNeedsPGUUID(t *testing.T) {
	type Bare struct {
		bun.BaseModel `bun:"table:bare"`

		ID types.UUID `bun:"id,pk,type:uuid"`
	}
	s := postgres(t)
	ctx := context.Background()
	_, err := s.db.NewCreateTable().Model((*Bare)(nil)).Exec(ctx)
	require.NoError(t, err)
	_, err = s.db.NewInsert().Model(&Bare{ID: types.NewUUIDv7()}).Exec(ctx)
	require.ErrorContains(t, err, "invalid input syntax for type uuid")
}

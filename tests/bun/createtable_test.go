package bun_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// row has every ID type; pgRow, mariaRow and sqliteRow are the same fields
// with docs/bun.md's type tags for each database (Go converts between
// struct types that differ only in their tags).
type row struct {
	bun.BaseModel

	ID   types.ObjectID
	Seq  types.Snowflake
	UID  types.UUID
	Hex  sqltypes.HexObjectID
	Ref  types.NullObjectID
	NSeq types.NullSnowflake
	NUID types.NullUUID
	NHex sqltypes.NullHexObjectID
}

type pgRow struct {
	bun.BaseModel `bun:"table:bun47_ids"`

	ID   types.ObjectID           `bun:"id,pk"`
	Seq  types.Snowflake          `bun:"seq"`
	UID  types.UUID               `bun:"uid"`
	Hex  sqltypes.HexObjectID     `bun:"hex,type:char(24)"`
	Ref  types.NullObjectID       `bun:"ref,type:bytea"`
	NSeq types.NullSnowflake      `bun:"nseq,type:bigint"`
	NUID types.NullUUID           `bun:"nuid,type:bytea"`
	NHex sqltypes.NullHexObjectID `bun:"nhex,type:char(24)"`
}

type mariaRow struct {
	bun.BaseModel `bun:"table:bun47_ids"`

	ID   types.ObjectID           `bun:"id,pk,type:binary(12)"`
	Seq  types.Snowflake          `bun:"seq"`
	UID  types.UUID               `bun:"uid,type:binary(16)"`
	Hex  sqltypes.HexObjectID     `bun:"hex,type:char(24)"`
	Ref  types.NullObjectID       `bun:"ref,type:binary(12)"`
	NSeq types.NullSnowflake      `bun:"nseq,type:bigint"`
	NUID types.NullUUID           `bun:"nuid,type:binary(16)"`
	NHex sqltypes.NullHexObjectID `bun:"nhex,type:char(24)"`
}

type sqliteRow struct {
	bun.BaseModel `bun:"table:bun47_ids"`

	ID   types.ObjectID           `bun:"id,pk,type:blob"`
	Seq  types.Snowflake          `bun:"seq"`
	UID  types.UUID               `bun:"uid,type:blob"`
	Hex  sqltypes.HexObjectID     `bun:"hex,type:text"`
	Ref  types.NullObjectID       `bun:"ref,type:blob"`
	NSeq types.NullSnowflake      `bun:"nseq,type:integer"`
	NUID types.NullUUID           `bun:"nuid,type:blob"`
	NHex sqltypes.NullHexObjectID `bun:"nhex,type:text"`
}

// tableOf is what one database's test needs of its model: the columns
// CreateTable should make and the conversions from and to row.
type tableOf struct {
	columns map[string]string
	one     func(row) any   // a pointer to the model
	many    func([]row) any // a pointer to a slice of the model
	back    func(any) []row // from what many returned
}

func conv[M any](columns map[string]string, to func(row) M, from func(M) row) tableOf {
	return tableOf{
		columns: columns,
		one:     func(r row) any { m := to(r); return &m },
		many: func(rs []row) any {
			ms := make([]M, len(rs))
			for i, r := range rs {
				ms[i] = to(r)
			}
			return &ms
		},
		back: func(p any) []row {
			var rs []row
			for _, m := range *p.(*[]M) {
				rs = append(rs, from(m))
			}
			return rs
		},
	}
}

var tables = map[string]tableOf{
	"PostgreSQL": conv(map[string]string{
		"id": "bytea", "seq": "bigint", "uid": "bytea", "hex": "character",
		"ref": "bytea", "nseq": "bigint", "nuid": "bytea", "nhex": "character",
	}, func(r row) pgRow { return pgRow(r) }, func(m pgRow) row { return row(m) }),
	"MariaDB": conv(map[string]string{
		"id": "binary(12)", "seq": "bigint(20)", "uid": "binary(16)", "hex": "char(24)",
		"ref": "binary(12)", "nseq": "bigint(20)", "nuid": "binary(16)", "nhex": "char(24)",
	}, func(r row) mariaRow { return mariaRow(r) }, func(m mariaRow) row { return row(m) }),
	"SQLite": conv(map[string]string{
		"id": "blob", "seq": "integer", "uid": "blob", "hex": "text",
		"ref": "blob", "nseq": "integer", "nuid": "blob", "nhex": "text",
	}, func(r row) sqliteRow { return sqliteRow(r) }, func(m sqliteRow) row { return row(m) }),
}

func TestCreateTable(t *testing.T) {
	servers(t, func(t *testing.T, s server) {
		ctx := context.Background()
		tab := tables[s.name]
		_, err := s.db.NewCreateTable().Model(tab.one(row{})).Exec(ctx)
		require.NoError(t, err)
		require.Equal(t, tab.columns, columnTypes(t, s, "bun47_ids"))

		oid := objectIDs.Next()
		sf, err := snowflakes.Next()
		require.NoError(t, err)
		uid := types.NewUUIDv7()
		rows := []row{{
			ID: oid, Seq: sf, UID: uid, Hex: sqltypes.HexObjectID(oid),
			Ref:  types.NullObjectID{ID: oid, Valid: true},
			NSeq: types.NullSnowflake{ID: sf, Valid: true},
			NUID: types.NullUUID{ID: uid, Valid: true},
			NHex: sqltypes.NullHexObjectID{ID: sqltypes.HexObjectID(oid), Valid: true},
		}, {
			ID: objectIDs.Next(), Seq: sf + 1, UID: types.NewUUIDv7(), Hex: sqltypes.HexObjectID(objectIDs.Next()),
		}}
		_, err = s.db.NewInsert().Model(tab.many(rows)).Exec(ctx)
		require.NoError(t, err)

		require.ElementsMatch(t, [][]byte{oid[:], nil}, rawColumn[[]byte](t, s, "bun47_ids", "ref"))
		require.ElementsMatch(t, [][]byte{uid[:], nil}, rawColumn[[]byte](t, s, "bun47_ids", "nuid"))
		require.Contains(t, rawColumn[[]byte](t, s, "bun47_ids", "nhex"), []byte(oid.Hex()))

		got := tab.many(nil)
		require.NoError(t, s.db.NewSelect().Model(got).Order("seq").Scan(ctx))
		require.Equal(t, rows, tab.back(got))
	})
}

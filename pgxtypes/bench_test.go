package pgxtypes_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idkit-go/idkit/pgxtypes"
	"github.com/idkit-go/idkit/types"
)

// These benchmarks decide whether idkit needs native pgx codecs. pgx reaches
// the idkit types through Value and Scan; a native codec could at best do
// what pgx does for the builtin types the IDs are made of ([]byte and int64,
// and a fixed array filled by pgtype.BytesScanner), so the builtin forms
// measure the ceiling of what a codec could win.

// rawID is the best a native ObjectID scan could do: a fixed array filled
// by pgx's BytesScanner path with no intermediate allocation.
type rawID [12]byte

func (r *rawID) ScanBytes(b []byte) error {
	if len(b) != 12 {
		return fmt.Errorf("%d bytes", len(b))
	}
	copy(r[:], b)
	return nil
}

func registered() *pgtype.Map {
	m := pgtype.NewMap()
	pgxtypes.Register(m)
	return m
}

func BenchmarkEncode(b *testing.B) {
	m, r := pgtype.NewMap(), registered()
	id := types.NewObjectID()
	sid := types.Snowflake(2124815507335938048)
	for _, c := range []struct {
		name string
		m    *pgtype.Map
		oid  uint32
		v    any
	}{
		{"ObjectID/Valuer", m, pgtype.ByteaOID, id},
		{"ObjectID/Register", r, pgtype.ByteaOID, id},
		{"ObjectID/builtin", m, pgtype.ByteaOID, id[:]},
		{"Snowflake/Valuer", m, pgtype.Int8OID, sid},
		{"Snowflake/Register", r, pgtype.Int8OID, sid},
		{"Snowflake/builtin", m, pgtype.Int8OID, int64(sid)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 64)
			for b.Loop() {
				var err error
				if _, err = c.m.Encode(c.oid, pgtype.BinaryFormatCode, c.v, buf[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkScan(b *testing.B) {
	m, r := pgtype.NewMap(), registered()
	id := types.NewObjectID()
	sid8 := binary.BigEndian.AppendUint64(nil, 2124815507335938048)
	var (
		oid  types.ObjectID
		raw  rawID
		sid  types.Snowflake
		i64  int64
		noid types.NullObjectID
	)
	for _, c := range []struct {
		name string
		m    *pgtype.Map
		oid  uint32
		src  []byte
		dst  any
	}{
		{"ObjectID/Scanner", m, pgtype.ByteaOID, id[:], &oid},
		{"ObjectID/Register", r, pgtype.ByteaOID, id[:], &oid},
		{"NullObjectID/Scanner", m, pgtype.ByteaOID, id[:], &noid},
		{"NullObjectID/Register", r, pgtype.ByteaOID, id[:], &noid},
		{"ObjectID/builtin", m, pgtype.ByteaOID, id[:], &raw},
		{"Snowflake/Scanner", m, pgtype.Int8OID, sid8, &sid},
		{"Snowflake/Register", r, pgtype.Int8OID, sid8, &sid},
		{"Snowflake/builtin", m, pgtype.Int8OID, sid8, &i64},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			plan := c.m.PlanScan(c.oid, pgtype.BinaryFormatCode, c.dst)
			for b.Loop() {
				if err := plan.Scan(c.src, c.dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPostgres measures whole round trips on the real server: 1,000
// rows written with CopyFrom and 1,000 rows read, idkit types against the
// builtin forms.
func BenchmarkPostgres(b *testing.B) {
	plain := connect(b, pgx.QueryExecModeCacheStatement, false)
	reg := connect(b, pgx.QueryExecModeCacheStatement, true)
	table := createTable(b, plain)
	ctx := context.Background()
	const n = 1000
	ids := make([]types.ObjectID, n)
	for i := range ids {
		ids[i] = types.NewObjectID()
	}
	next := int64(1)
	copyRows := func(builtin bool) [][]any {
		rows := make([][]any, n)
		for i := range rows {
			next++
			if builtin {
				rows[i] = []any{ids[i][:], next, nil, nil}
			} else {
				rows[i] = []any{ids[i], types.Snowflake(next), types.NullObjectID{}, types.NullSnowflake{}}
			}
		}
		return rows
	}
	variants := []struct {
		name    string
		conn    *pgx.Conn
		builtin bool
	}{{"Valuer", plain, false}, {"Register", reg, false}, {"builtin", plain, true}}
	for _, v := range variants {
		conn, builtin := v.conn, v.builtin
		b.Run("CopyFrom1000/"+v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				plain.Exec(ctx, "TRUNCATE "+table)
				rows := copyRows(builtin)
				b.StartTimer()
				if _, err := conn.CopyFrom(ctx, pgx.Identifier{table}, []string{"id", "sid", "parent", "ref"}, pgx.CopyFromRows(rows)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, v := range variants {
		conn, builtin := v.conn, v.builtin
		b.Run("Select1000/"+v.name, func(b *testing.B) {
			b.ReportAllocs()
			var (
				id     types.ObjectID
				sid    types.Snowflake
				parent types.NullObjectID
				ref    types.NullSnowflake
				raw    rawID
				i64    int64
				praw   *rawID
				pi64   *int64
			)
			for b.Loop() {
				rows, err := conn.Query(ctx, "SELECT id, sid, parent, ref FROM "+table)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
					if builtin {
						err = rows.Scan(&raw, &i64, &praw, &pi64)
					} else {
						err = rows.Scan(&id, &sid, &parent, &ref)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				if rows.Err() != nil {
					b.Fatal(rows.Err())
				}
			}
		})
	}
}

package spanner_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"cloud.google.com/go/spanner"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/idkit-go/idkit/types"
)

// TestIDWriteErrors: a zero ID, a valid Null form holding one, and a
// negative Snowflake are refused before anything reaches the database.
func TestIDWriteErrors(t *testing.T) {
	c := newDB(t, idsDDL)
	ctx := context.Background()
	good := nullRow()
	for _, tc := range []struct {
		name string
		row  func(*idRow)
		want error
	}{
		{"zero ObjectID", func(r *idRow) { r.OID = types.ObjectID{} }, types.ErrZeroID},
		{"zero Snowflake", func(r *idRow) { r.SF = 0 }, types.ErrZeroID},
		{"zero UUID", func(r *idRow) { r.U = types.UUID{} }, types.ErrZeroID},
		{"valid NullObjectID of zero", func(r *idRow) { r.NOID = types.NullObjectID{Valid: true} }, types.ErrZeroID},
		{"valid NullSnowflake of zero", func(r *idRow) { r.NSF = types.NullSnowflake{Valid: true} }, types.ErrZeroID},
		{"valid NullUUID of zero", func(r *idRow) { r.NU = types.NullUUID{Valid: true} }, types.ErrZeroID},
		{"negative Snowflake", func(r *idRow) { r.SF = -5 }, types.ErrInvalidSnowflake},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := good
			tc.row(&r)
			m, err := spanner.InsertStruct("ids", r)
			if err == nil {
				_, err = c.Apply(ctx, []*spanner.Mutation{m})
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("InsertStruct: %v, want an error wrapping %v", err, tc.want)
			}
			_, err = c.Apply(ctx, []*spanner.Mutation{spanner.Insert("ids", idCols, r.values())})
			if !errors.Is(err, tc.want) {
				t.Errorf("Insert: %v, want an error wrapping %v", err, tc.want)
			}
			// As a query parameter, the client keeps the message only.
			params := map[string]any{"oid": r.OID, "sf": r.SF, "u": r.U, "noid": r.NOID, "nsf": r.NSF, "nu": r.NU}
			stmt := spanner.Statement{SQL: "SELECT @oid, @sf, @u, @noid, @nsf, @nu", Params: params}
			err = c.Single().Query(ctx, stmt).Do(func(*spanner.Row) error { return nil })
			if spanner.ErrCode(err) != codes.InvalidArgument || !strings.Contains(err.Error(), tc.want.Error()) {
				t.Errorf("as a parameter: %v, want InvalidArgument naming %q", err, tc.want)
			}
		})
	}
	if n := readAll(t, c, spanner.Statement{SQL: "SELECT oid FROM ids"}); len(n) != 0 {
		t.Errorf("%d rows stored, want none", len(n))
	}
}

// TestIDReadErrors: a column value that is no ID of the type, or NULL
// into a non-null type, is an error and leaves the destination unchanged;
// NULL into a Null form makes it NULL. Row.Column and ToStruct return the
// error as a *spanner.Error with code InvalidArgument and the ID type's
// message (the client keeps the message, not the error); a
// GenericColumnValue's Decode returns it as it is, wrapping the sentinel.
func TestIDReadErrors(t *testing.T) {
	c := newDB(t, `CREATE TABLE bad (
		k INT64 NOT NULL,
		b BYTES(MAX),
		s STRING(MAX),
		i INT64,
		f FLOAT64,
	) PRIMARY KEY (k)`)
	ctx := context.Background()
	cols := []string{"b", "s", "i", "f"}
	// No non-NULL value here is an ID of any of the three types.
	rows := [][]any{
		{make([]byte, 11), "zz", int64(-1), 1.5},
		{make([]byte, 13), strings.Repeat("g", 24), nil, nil},
		{make([]byte, 17), strings.Repeat("x", 36), int64(math.MinInt64), math.Inf(1)},
		{make([]byte, 15), "", nil, 3.0},
		{[]byte{}, "1.5", nil, nil},
		{nil, nil, nil, nil},
	}
	var ms []*spanner.Mutation
	for k, r := range rows {
		ms = append(ms, spanner.Insert("bad", append([]string{"k"}, cols...), append([]any{int64(k)}, r...)))
	}
	if _, err := c.Apply(ctx, ms); err != nil {
		t.Fatal(err)
	}
	type decoder interface{ DecodeSpanner(any) error }
	for k := range rows {
		row, err := c.Single().ReadRow(ctx, "bad", spanner.Key{int64(k)}, cols)
		if err != nil {
			t.Fatal(err)
		}
		for i, col := range cols {
			var g spanner.GenericColumnValue
			if err := row.Column(i, &g); err != nil {
				t.Fatal(err)
			}
			_, isNull := g.Value.Kind.(*structpb.Value_NullValue)
			for _, d := range []struct {
				dst      decoder
				nullable bool
				sentinel error
			}{
				{&types.ObjectID{1}, false, types.ErrInvalidObjectID},
				{ptr(types.Snowflake(7)), false, types.ErrInvalidSnowflake},
				{&types.UUID{1}, false, types.ErrInvalidUUID},
				{&types.NullObjectID{ID: types.ObjectID{1}, Valid: true}, true, types.ErrInvalidObjectID},
				{&types.NullSnowflake{ID: 7, Valid: true}, true, types.ErrInvalidSnowflake},
				{&types.NullUUID{ID: types.UUID{1}, Valid: true}, true, types.ErrInvalidUUID},
			} {
				name := fmt.Sprintf("row %d column %s (%s) into %T", k, col, g.Value, d.dst)
				before := fmt.Sprint(d.dst)
				err := g.Decode(d.dst)
				switch {
				case isNull && d.nullable:
					if err != nil || fmt.Sprint(d.dst) != fmt.Sprint(reflect.New(reflect.TypeOf(d.dst).Elem()).Interface()) {
						t.Errorf("%s: %v, %v; want NULL", name, d.dst, err)
					}
					continue
				case !errors.Is(err, d.sentinel) || errors.Is(err, types.ErrNull) != isNull:
					t.Errorf("%s: GenericColumnValue.Decode: %v, want an error wrapping %v (and ErrNull: %t)", name, err, d.sentinel, isNull)
				case fmt.Sprint(d.dst) != before:
					t.Errorf("%s: changed to %v on error", name, d.dst)
				}
				err = row.Column(i, d.dst)
				if spanner.ErrCode(err) != codes.InvalidArgument || !strings.Contains(err.Error(), d.sentinel.Error()) {
					t.Errorf("%s: Row.Column: %v, want InvalidArgument naming %q", name, err, d.sentinel)
				}
				if fmt.Sprint(d.dst) != before {
					t.Errorf("%s: Row.Column changed it to %v on error", name, d.dst)
				}
			}
			if i == 0 {
				// Through a struct: the client's error for field b carries
				// the ObjectID's message.
				err := row.ToStruct(&struct {
					B       types.ObjectID `spanner:"b"`
					S, I, F spanner.GenericColumnValue
				}{})
				if spanner.ErrCode(err) != codes.Unknown || !strings.Contains(err.Error(), types.ErrInvalidObjectID.Error()) {
					t.Errorf("row %d: ToStruct: %v, want code Unknown naming %q", k, err, types.ErrInvalidObjectID)
				}
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }

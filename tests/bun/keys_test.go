package bun_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/idkit-go/idkit/dialect"
	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// createKeyTables makes the models' tables as a migration would, with the
// column types of sqltypes (BYTEA for a UUID on PostgreSQL: bun writes a
// types.UUID as bytes, see pguuid_test.go for a uuid column).
func createKeyTables(t *testing.T, s server) {
	t.Helper()
	oid, uid := sqltypes.ObjectIDColumnType(s.d), sqltypes.UUIDColumnType(s.d)
	if s.d == dialect.Postgres {
		uid = "bytea"
	}
	for _, ddl := range []string{
		"CREATE TABLE customers (id " + oid + " PRIMARY KEY, name varchar(100) NOT NULL)",
		"CREATE TABLE orders (id bigint PRIMARY KEY, customer_id " + oid + " NOT NULL, coupon_id " + oid + ", parent_id bigint)",
		"CREATE TABLE events (id " + uid + " PRIMARY KEY, cause_id " + uid + ")",
		"CREATE TABLE legacy (id char(24) PRIMARY KEY, copy_of char(24))",
	} {
		mustExec(t, s.raw, ddl)
	}
}

func findOrders(ctx context.Context, db *bun.DB, ids []types.Snowflake) ([]Order, error) {
	var orders []Order
	err := db.NewSelect().Model(&orders).Where("id IN (?)", bun.List(ids)).Order("id").Scan(ctx)
	return orders, err
}

func TestKeys(t *testing.T) {
	servers(t, func(t *testing.T, s server) {
		ctx := context.Background()
		createKeyTables(t, s)

		// An ObjectID key, filled by the model's hook.
		c := Customer{Name: "Ada"}
		_, err := s.db.NewInsert().Model(&c).Exec(ctx)
		require.NoError(t, err)
		require.False(t, c.ID.IsZero(), "hook filled no key")
		require.Equal(t, [][]byte{c.ID[:]}, rawColumn[[]byte](t, s, "customers", "id"))
		var gotC Customer
		require.NoError(t, s.db.NewSelect().Model(&gotC).Where("id = ?", c.ID).Scan(ctx))
		require.Equal(t, c, gotC)

		// Snowflake keys in one bulk insert, with the Null forms both ways.
		orders := []Order{
			{Customer: c.ID},
			{Customer: c.ID, Coupon: types.NullObjectID{ID: objectIDs.Next(), Valid: true}},
			{Customer: c.ID, Parent: types.NullSnowflake{ID: 42, Valid: true}},
		}
		_, err = s.db.NewInsert().Model(&orders).Exec(ctx)
		require.NoError(t, err)
		ids := make([]types.Snowflake, len(orders))
		want := make([]int64, len(orders))
		for i, o := range orders {
			require.False(t, o.ID.IsZero(), "order %d: hook filled no key", i)
			ids[i], want[i] = o.ID, int64(o.ID)
		}
		slices.Sort(want)
		require.Equal(t, want, rawColumn[int64](t, s, "orders", "id"))
		coupons := rawColumn[[]byte](t, s, "orders", "coupon_id")
		require.ElementsMatch(t, [][]byte{nil, nil, orders[1].Coupon.ID[:]}, coupons)
		require.ElementsMatch(t, []sql.NullInt64{{}, {}, {Int64: 42, Valid: true}}, rawColumn[sql.NullInt64](t, s, "orders", "parent_id"))

		gotO, err := findOrders(ctx, s.db, ids)
		require.NoError(t, err)
		slices.SortFunc(orders, func(a, b Order) int { return a.ID.Compare(b.ID) })
		require.Equal(t, orders, gotO)

		// Update and delete by the model's key.
		o := orders[0]
		o.Coupon = types.NullObjectID{ID: objectIDs.Next(), Valid: true}
		_, err = s.db.NewUpdate().Model(&o).WherePK().Exec(ctx)
		require.NoError(t, err)
		var one Order
		require.NoError(t, s.db.NewSelect().Model(&one).Where("id = ?", o.ID).Scan(ctx))
		require.Equal(t, o, one)
		res, err := s.db.NewDelete().Model(&o).WherePK().Exec(ctx)
		require.NoError(t, err)
		n, err := res.RowsAffected()
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		var byCustomer []Order
		require.NoError(t, s.db.NewSelect().Model(&byCustomer).Where("customer_id = ?", c.ID).Scan(ctx))
		require.Len(t, byCustomer, 2)

		// UUID keys and NullUUID.
		events := []*Event{{}, {}}
		_, err = s.db.NewInsert().Model(&events).Exec(ctx)
		require.NoError(t, err)
		cause := Event{Cause: types.NullUUID{ID: events[0].ID, Valid: true}}
		_, err = s.db.NewInsert().Model(&cause).Exec(ctx)
		require.NoError(t, err)
		raw := rawColumn[[]byte](t, s, "events", "id")
		require.Len(t, raw, 3)
		for _, e := range append(events, &cause) {
			require.Contains(t, raw, e.ID[:])
		}
		require.Contains(t, rawColumn[[]byte](t, s, "events", "cause_id"), events[0].ID[:])
		var gotE []Event
		require.NoError(t, s.db.NewSelect().Model(&gotE).
			Where("id IN (?)", bun.List([]types.UUID{events[0].ID, cause.ID})).Order("id").Scan(ctx))
		require.Equal(t, []Event{*events[0], cause}, gotE, "version 7 UUIDs sort by time")

		// bun.Tuple writes the parentheses itself; bun.In, deprecated in
		// v1.3, still works.
		require.NoError(t, s.db.NewSelect().Model(&gotE).Where("id IN ?", bun.Tuple([]types.UUID{cause.ID})).Scan(ctx))
		require.Equal(t, []Event{cause}, gotE)
		//lint:ignore SA1019 bun.In is what code written for bun v1.2 calls
		require.NoError(t, s.db.NewSelect().Model(&gotE).Where("id IN (?)", bun.In([]types.UUID{events[1].ID})).Scan(ctx))
		require.Equal(t, []Event{*events[1]}, gotE)

		// HexObjectID: 24 hex characters in the database.
		legacy := []Legacy{{}, {Copy: sqltypes.NullHexObjectID{ID: sqltypes.HexObjectID(c.ID), Valid: true}}}
		_, err = s.db.NewInsert().Model(&legacy).Exec(ctx)
		require.NoError(t, err)
		require.ElementsMatch(t, []sql.NullString{{}, {String: c.ID.Hex(), Valid: true}}, rawColumn[sql.NullString](t, s, "legacy", "copy_of"))
		var gotL []Legacy
		require.NoError(t, s.db.NewSelect().Model(&gotL).
			Where("id IN (?)", bun.List([]sqltypes.HexObjectID{legacy[0].ID, legacy[1].ID})).Scan(ctx))
		require.ElementsMatch(t, legacy, gotL)
	})
}

package gormplugin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/types"
)

// TestScanForms pins which GORM forms read a single ID column, as
// docs/gorm-errors.md lists them. GORM's Scan takes a destination whose
// type is an array, as types.ObjectID ([12]byte) is, for a list of twelve
// values and reads the column into its first byte, which fails; no callback
// runs between the query and that scan, so the plugin cannot help, and the
// working forms are Row().Scan, Pluck, and Scan into a slice or a struct.
// The Null forms (structs) work everywhere, because their fields are tagged
// gorm:"-": without the tags GORM took NullObjectID for a model, filled ID
// from the "id" column and left Valid false.
func TestScanForms(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Doc{}, &NullDoc{}, &Order{})
		docs := seedDocs(t, db)
		want := docs[1].ID
		table := func(model any) string {
			stmt := &gorm.Statement{DB: db}
			require.NoError(t, stmt.Parse(model))
			return stmt.Schema.Table
		}
		byName := func() *gorm.DB { return db.Model(&Doc{}).Select("id").Where("name = ?", "b") }
		raw := "SELECT id FROM " + table(&Doc{}) + " WHERE name = ?"

		t.Run("work", func(t *testing.T) {
			var id types.ObjectID
			require.NoError(t, byName().Row().Scan(&id))
			assert.Equal(t, want, id, "Row().Scan")

			id = types.ObjectID{}
			require.NoError(t, db.Raw(raw, "b").Row().Scan(&id))
			assert.Equal(t, want, id, "Raw(...).Row().Scan")

			var ids []types.ObjectID
			require.NoError(t, db.Model(&Doc{}).Where("name = ?", "b").Pluck("id", &ids).Error)
			assert.Equal(t, []types.ObjectID{want}, ids, "Pluck")

			ids = nil
			require.NoError(t, byName().Scan(&ids).Error)
			assert.Equal(t, []types.ObjectID{want}, ids, "Scan into a slice")

			ids = nil
			require.NoError(t, db.Raw(raw, "b").Scan(&ids).Error)
			assert.Equal(t, []types.ObjectID{want}, ids, "Raw(...).Scan into a slice")

			var row struct{ ID types.ObjectID }
			require.NoError(t, db.Raw(raw, "b").Scan(&row).Error)
			assert.Equal(t, want, row.ID, "Raw(...).Scan into a struct")

			var nulls []types.NullObjectID
			require.NoError(t, db.Model(&Doc{}).Where("name = ?", "b").Pluck("id", &nulls).Error)
			assert.Equal(t, []types.NullObjectID{types.NullObjectID{ID: want, Valid: true}}, nulls, "Pluck into NullObjectIDs")

			nulls = nil
			require.NoError(t, byName().Scan(&nulls).Error)
			assert.Equal(t, []types.NullObjectID{types.NullObjectID{ID: want, Valid: true}}, nulls, "Scan into NullObjectIDs")

			var n types.NullObjectID
			require.NoError(t, byName().Row().Scan(&n))
			assert.Equal(t, types.NullObjectID{ID: want, Valid: true}, n, "Row().Scan into a NullObjectID")

			n = types.NullObjectID{}
			require.NoError(t, byName().Scan(&n).Error)
			assert.Equal(t, types.NullObjectID{ID: want, Valid: true}, n, "Scan into a NullObjectID")

			n = types.NullObjectID{}
			require.NoError(t, db.Raw(raw, "b").Scan(&n).Error)
			assert.Equal(t, types.NullObjectID{ID: want, Valid: true}, n, "Raw(...).Scan into a NullObjectID")

			migrate(t, db, &Customer{}, &Purchase{})
			require.NoError(t, db.Create(&[]Purchase{{Item: "a", Coupon: types.NullSnowflake{ID: 42, Valid: true}}, {Item: "b"}}).Error)
			var coupons []types.NullSnowflake
			require.NoError(t, db.Model(&Purchase{}).Order("item").Pluck("coupon", &coupons).Error)
			assert.Equal(t, []types.NullSnowflake{types.NullSnowflake{ID: 42, Valid: true}, {}}, coupons, "Pluck a nullable column")
			var coupon types.NullSnowflake
			require.NoError(t, db.Model(&Purchase{}).Select("coupon").Where("item = ?", "a").Scan(&coupon).Error)
			assert.Equal(t, types.NullSnowflake{ID: 42, Valid: true}, coupon, "Scan into a NullSnowflake")
			coupon = types.NullSnowflake{ID: 1, Valid: true}
			require.NoError(t, db.Model(&Purchase{}).Select("coupon").Where("item = ?", "b").Scan(&coupon).Error)
			assert.Equal(t, types.NullSnowflake{}, coupon, "Scan of NULL into a NullSnowflake")

			orders := []Order{{Name: "a"}}
			require.NoError(t, db.Create(&orders).Error)
			var s types.Snowflake
			require.NoError(t, db.Model(&Order{}).Select("id").Where("name = ?", "a").Scan(&s).Error)
			assert.Equal(t, orders[0].ID, s, "Scan into a Snowflake (an int64, not an array)")
			s = 0
			require.NoError(t, db.Raw("SELECT id FROM "+table(&Order{})+" WHERE name = ?", "a").Scan(&s).Error)
			assert.Equal(t, orders[0].ID, s, "Raw(...).Scan into a Snowflake")
			s = 0
			require.NoError(t, db.Model(&Order{}).Select("id").Where("name = ?", "a").Row().Scan(&s))
			assert.Equal(t, orders[0].ID, s, "Row().Scan into a Snowflake")
			var sfs []types.Snowflake
			require.NoError(t, db.Model(&Order{}).Where("name = ?", "a").Pluck("id", &sfs).Error)
			assert.Equal(t, []types.Snowflake{orders[0].ID}, sfs, "Pluck into Snowflakes")
			var orow struct{ ID types.Snowflake }
			require.NoError(t, db.Model(&Order{}).Select("id").Where("name = ?", "a").Scan(&orow).Error)
			assert.Equal(t, orders[0].ID, orow.ID, "Scan into a struct")
		})

		t.Run("do not work", func(t *testing.T) {
			var id types.ObjectID
			assert.Error(t, byName().Scan(&id).Error, "Scan into an ObjectID")
			assert.Error(t, db.Raw(raw, "b").Scan(&id).Error, "Raw(...).Scan into an ObjectID")
			assert.Zero(t, id)
		})
	})
}

package gormplugin_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// TestZeroKeyLookup looks rows up, updates and deletes them by a zero key
// (a request that carried no ID) in every inline form: each fails with an
// error wrapping types.ErrZeroID, and the stored rows are unchanged.
func TestZeroKeyLookup(t *testing.T) {
	var (
		zeroOID types.ObjectID
		zeroSF  types.Snowflake
	)
	tests := []struct {
		name string
		run  func(db *gorm.DB, d []Doc) error
	}{
		{"First ObjectID", func(db *gorm.DB, _ []Doc) error { return db.First(&Doc{}, zeroOID).Error }},
		{"First *ObjectID", func(db *gorm.DB, _ []Doc) error { return db.First(&Doc{}, &zeroOID).Error }},
		{"First valid zero NullObjectID", func(db *gorm.DB, _ []Doc) error {
			return db.First(&Doc{}, types.NullObjectID{Valid: true}).Error
		}},
		{"First HexObjectID", func(db *gorm.DB, _ []Doc) error { return db.First(&Doc{}, sqltypes.HexObjectID{}).Error }},
		{"First [12]byte", func(db *gorm.DB, _ []Doc) error { return db.First(&Doc{}, [12]byte{}).Error }},
		{"First zero hex string", func(db *gorm.DB, _ []Doc) error {
			return db.First(&Doc{}, "000000000000000000000000").Error
		}},
		{"Delete zero hex string", func(db *gorm.DB, _ []Doc) error {
			return db.Delete(&Doc{}, "000000000000000000000000").Error
		}},
		{"Find hex strings with a zero", func(db *gorm.DB, d []Doc) error {
			var out []Doc
			return db.Find(&out, []string{d[0].ID.Hex(), "000000000000000000000000"}).Error
		}},
		{"Take", func(db *gorm.DB, _ []Doc) error { return db.Take(&Doc{}, zeroOID).Error }},
		{"Last", func(db *gorm.DB, _ []Doc) error { return db.Last(&Doc{}, zeroOID).Error }},
		{"Find", func(db *gorm.DB, _ []Doc) error {
			var out []Doc
			return db.Find(&out, zeroOID).Error
		}},
		{"Not(zero)", func(db *gorm.DB, _ []Doc) error {
			var out []Doc
			return db.Not(zeroOID).Find(&out).Error
		}},
		{"Find slice with a zero", func(db *gorm.DB, d []Doc) error {
			var out []Doc
			return db.Find(&out, []types.ObjectID{d[0].ID, {}}).Error
		}},
		{"Where(zero).First", func(db *gorm.DB, _ []Doc) error { return db.Where(zeroOID).First(&Doc{}).Error }},
		{"Where(map)", func(db *gorm.DB, _ []Doc) error {
			return db.Where(map[string]any{"id": zeroOID}).First(&Doc{}).Error
		}},
		{"gorm.G", func(db *gorm.DB, _ []Doc) error {
			_, err := gorm.G[Doc](db).Where(zeroOID).First(context.Background())
			return err
		}},
		{"Count", func(db *gorm.DB, _ []Doc) error {
			var n int64
			return db.Model(&Doc{}).Where(zeroOID).Count(&n).Error
		}},
		{"Delete", func(db *gorm.DB, _ []Doc) error { return db.Delete(&Doc{}, zeroOID).Error }},
		{"Delete slice with a zero", func(db *gorm.DB, d []Doc) error {
			return db.Delete(&Doc{}, []types.ObjectID{d[0].ID, {}}).Error
		}},
		{"Where(zero).Delete", func(db *gorm.DB, _ []Doc) error { return db.Where(zeroOID).Delete(&Doc{}).Error }},
		{"Or(zero).Delete", func(db *gorm.DB, d []Doc) error {
			return db.Where(d[0].ID).Or(zeroOID).Delete(&Doc{}).Error
		}},
		{"Update", func(db *gorm.DB, _ []Doc) error {
			return db.Model(&Doc{}).Where(zeroOID).Update("name", "x").Error
		}},
		{"Snowflake First", func(db *gorm.DB, _ []Doc) error { return db.First(&Order{}, zeroSF).Error }},
		{"Snowflake First pointer", func(db *gorm.DB, _ []Doc) error { return db.First(&Order{}, &zeroSF).Error }},
		{"Snowflake valid zero NullSnowflake", func(db *gorm.DB, _ []Doc) error {
			return db.First(&Order{}, types.NullSnowflake{Valid: true}).Error
		}},
		{"Snowflake Find slice with a zero", func(db *gorm.DB, _ []Doc) error {
			var out []Order
			return db.Find(&out, []types.Snowflake{1, 0}).Error
		}},
		{"Snowflake Delete", func(db *gorm.DB, _ []Doc) error { return db.Delete(&Order{}, zeroSF).Error }},
		{"Snowflake Where(zero).Delete", func(db *gorm.DB, _ []Doc) error {
			return db.Where(zeroSF).Delete(&Order{}).Error
		}},
	}
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Doc{}, &Order{})
		docs := seedDocs(t, db)
		orders := []Order{{Name: "a"}, {Name: "b"}}
		require.NoError(t, db.Create(&orders).Error)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := tt.run(db, docs)
				require.ErrorIs(t, err, types.ErrZeroID)
				assert.Contains(t, err.Error(), "looked up by a zero")
				assert.Equal(t, []string{"a", "b", "c"}, names(t, db, &Doc{}), "docs changed")
				assert.Equal(t, []string{"a", "b"}, names(t, db, &Order{}), "orders changed")
			})
		}
	})
}

// TestZeroKeyLookupWithoutPlugin checks what a zero key does when the
// plugin is not registered: GORM keeps the ID as the condition's argument
// (its Value returns a non-nil value with the error), so the driver
// refuses it with the Value error, which wraps types.ErrZeroID and names
// gormplugin; nothing is deleted.
func TestZeroKeyLookupWithoutPlugin(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := openDB(t, d, nil)
			migrate(t, db, &Order{}, &Doc{})
			require.NoError(t, db.Create(&Order{ID: 7, Name: "a"}).Error)
			require.NoError(t, db.Create(&Doc{ID: types.NewObjectID(), Name: "a"}).Error)
			require.ErrorIs(t, db.First(&Doc{}, types.ObjectID{}).Error, types.ErrZeroID)
			require.ErrorIs(t, db.Delete(&Doc{}, types.ObjectID{}).Error, types.ErrZeroID)
			assert.Equal(t, []string{"a"}, names(t, db, &Doc{}))
			err := db.First(&Order{}, types.Snowflake(0)).Error
			require.ErrorIs(t, err, types.ErrZeroID)
			assert.Contains(t, err.Error(), "gormplugin")
			require.ErrorIs(t, db.Delete(&Order{}, types.Snowflake(0)).Error, types.ErrZeroID)
			assert.Equal(t, []string{"a"}, names(t, db, &Order{}))
		})
	}
}

// TestCreateWithoutPlugin checks the error of the usual mistake, a create
// on a *gorm.DB without the plugin: it wraps types.ErrZeroID, names
// gormplugin, and no row is stored.
func TestCreateWithoutPlugin(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := openDB(t, d, nil)
			migrate(t, db, &Doc{}, &Order{})
			for _, row := range []any{&Doc{Name: "a"}, &Order{Name: "a"}, &[]Doc{{Name: "a"}, {Name: "b"}}} {
				err := db.Create(row).Error
				require.ErrorIs(t, err, types.ErrZeroID)
				assert.Contains(t, err.Error(), "db.Use(gormplugin.New())")
			}
			assert.Empty(t, names(t, db, &Doc{}))
			assert.Empty(t, names(t, db, &Order{}))
		})
	}
}

// TestZeroIDInSQLLog checks that GORM's SQL log shows a zero ID as NULL, as
// before its Value returned a value with the error, not as that value.
func TestZeroIDInSQLLog(t *testing.T) {
	got := logger.ExplainSQL("id = ? OR id = ? OR id = ?", nil, `'`, types.Snowflake(0), types.ObjectID{}, sqltypes.HexObjectID{})
	assert.Equal(t, "id = NULL OR id = NULL OR id = NULL", got)
}

package gormplugin_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// TestHexStringKey looks rows of ObjectID-keyed models up by a string of 24
// hex digits, as a handler does with db.First(&doc, c.Param("id")): GORM
// would run the string as SQL; the plugin takes it as the key, in either
// case, and the rows selected, updated and deleted are exactly that key's.
func TestHexStringKey(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Doc{}, &HexDoc{}, &RawDoc{}, &TextDoc{})

		t.Run("Doc", func(t *testing.T) {
			docs := seedDocs(t, db)
			var got Doc
			require.NoError(t, db.First(&got, docs[1].ID.Hex()).Error)
			assert.Equal(t, docs[1], got)
			got = Doc{}
			require.NoError(t, db.Take(&got, strings.ToUpper(docs[2].ID.Hex())).Error, "upper-case hex")
			assert.Equal(t, docs[2], got)
			got = Doc{}
			require.NoError(t, db.Where(docs[0].ID.Hex()).First(&got).Error)
			assert.Equal(t, docs[0], got)
			g, err := gorm.G[Doc](db).Where(docs[1].ID.Hex()).First(context.Background())
			require.NoError(t, err)
			assert.Equal(t, docs[1], g)
			var many []Doc
			require.NoError(t, db.Find(&many, []string{docs[0].ID.Hex(), docs[2].ID.Hex()}).Error)
			assert.Equal(t, []string{"a", "c"}, docNames(many))
			many = nil
			require.NoError(t, db.Not(docs[0].ID.Hex()).Find(&many).Error)
			assert.Equal(t, []string{"b", "c"}, docNames(many))

			got = Doc{}
			assert.ErrorIs(t, db.First(&got, types.NewObjectID().Hex()).Error, gorm.ErrRecordNotFound, "a key no row has")

			res := db.Model(&Doc{}).Where(docs[2].ID.Hex()).Update("name", "x")
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			res = db.Delete(&Doc{}, docs[0].ID.Hex())
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			assert.Equal(t, []string{"b", "x"}, names(t, db, &Doc{}))
		})

		t.Run("other ObjectID key forms", func(t *testing.T) {
			hex := []HexDoc{{Name: "a"}, {Name: "b"}}
			require.NoError(t, db.Create(&hex).Error)
			var h HexDoc
			require.NoError(t, db.First(&h, strings.ToUpper(hex[1].ID.String())).Error)
			assert.Equal(t, hex[1], h)

			raw := []RawDoc{{Name: "a"}, {Name: "b"}}
			require.NoError(t, db.Create(&raw).Error)
			var r RawDoc
			require.NoError(t, db.First(&r, types.ObjectID(raw[1].ID).Hex()).Error)
			assert.Equal(t, raw[1], r)

			text := []TextDoc{{Name: "a"}, {Name: "b"}}
			require.NoError(t, db.Create(&text).Error)
			res := db.Delete(&TextDoc{}, text[0].ID)
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			assert.Equal(t, []string{"b"}, names(t, db, &TextDoc{}))
		})

		t.Run("not a hex key", func(t *testing.T) {
			// Strings that are not 24 hex digits stay what GORM makes of
			// them (SQL, or a number as a key): none selects a row here,
			// and none deletes one.
			require.NoError(t, db.Where("1 = 1").Delete(&HexDoc{}).Error)
			require.NoError(t, db.Create(&[]HexDoc{{Name: "a"}, {Name: "b"}}).Error)
			for _, s := range []string{"abc", "65a1b2c3d4e5f6a7b8c9d0e", "65a1b2c3d4e5f6a7b8c9d0e1f", "zza1b2c3d4e5f6a7b8c9d0e1", "12"} {
				var got HexDoc
				assert.Error(t, db.First(&got, s).Error, s)
				assert.Zero(t, got, s)
				_ = db.Delete(&HexDoc{}, s).Error // an error, or no row
				assert.Equal(t, []string{"a", "b"}, names(t, db, &HexDoc{}), s)
			}
		})
	})
}

// TestHexStringKeyNotRewritten checks that the rewrite is limited to the
// models it is for: a Snowflake-keyed model's string condition and a
// 24-hex-digit condition with arguments are left to GORM.
func TestHexStringKeyNotRewritten(t *testing.T) {
	db := openDB(t, dialects[0], gormplugin.New(gormplugin.WithNode(1))).Session(&gorm.Session{DryRun: true})
	hex := types.NewObjectID().Hex()
	stmt := db.First(&Order{}, hex).Statement
	assert.Contains(t, stmt.SQL.String(), hex, "a Snowflake model's raw condition")
	stmt = db.First(&Doc{}, hex).Statement
	assert.NotContains(t, stmt.SQL.String(), hex, "an ObjectID model's hex key is an argument")
	require.NotEmpty(t, stmt.Vars)
	assert.Equal(t, types.MustObjectIDFromHex(hex), stmt.Vars[0])
}

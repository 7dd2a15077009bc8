package gormplugin_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// The code of docs/gorm-errors.md, run on SQLite with the outcome each
// section states.

// docDB opens SQLite through testgorm with a plugin on node 1 and the
// given tables.
func docDB(t *testing.T, models ...any) *gorm.DB {
	t.Helper()
	db := openDB(t, dialects[0], gormplugin.New(gormplugin.WithNode(1)))
	migrate(t, db, models...)
	return db
}

// chained returns a *gorm.DB in a method chain: GORM runs a finisher such
// as First on it in place, so the statement's error stays in its Error
// field, where a test can read it after a call written as the docs write
// it, without .Error.
func chained(db *gorm.DB) *gorm.DB { return db.Where("1 = 1") }

// params stands for a web framework's request context.
type params map[string]string

func (c params) Param(name string) string { return c[name] }

func count(t *testing.T, db *gorm.DB, model any) int64 {
	t.Helper()
	var n int64
	require.NoError(t, db.Model(model).Count(&n).Error)
	return n
}

func TestDocZeroKeyLookup(t *testing.T) {
	base := docDB(t, &Doc{}, &Order{})
	require.NoError(t, base.Create(&Doc{Name: "a"}).Error)
	require.NoError(t, base.Create(&Order{Name: "a"}).Error)

	{
		var req struct{ ID types.ObjectID }
		var doc Doc
		db := chained(base)
		db.First(&doc, req.ID) // req.ID is types.ObjectID{}: the request had no "id"
		require.ErrorIs(t, db.Error, types.ErrZeroID)
		assert.EqualError(t, db.Error, "gormplugin: Doc looked up by a zero ObjectID (no ID given?): types: zero ID is not a key")
		assert.Zero(t, doc, "nothing read")
	}
	{
		var req struct{ ID types.Snowflake }
		db := chained(base)
		db.Delete(&Order{}, req.ID) // req.ID is types.Snowflake(0)
		require.ErrorIs(t, db.Error, types.ErrZeroID)
		assert.EqualValues(t, 1, count(t, base, &Order{}), "nothing deleted")
	}
}

func TestDocZeroKeyWritten(t *testing.T) {
	_, err := types.ObjectID{}.Value()
	require.ErrorIs(t, err, types.ErrZeroID)
	assert.EqualError(t, err, "types: zero ID is not a key: zero ObjectID has no SQL value: fill it before the INSERT (with GORM: db.Use(gormplugin.New())), or use NullObjectID for a nullable column")
}

func TestDocZeroReference(t *testing.T) {
	type Pet struct {
		ID    types.ObjectID
		Owner types.Snowflake
	}
	db := docDB(t, &Pet{})
	err := db.Create(&Pet{}).Error
	require.ErrorIs(t, err, types.ErrZeroID)
	assert.EqualError(t, err, "gormplugin: Pet.Owner is a zero types.Snowflake, which the plugin does not fill (it fills keys): types: zero ID is not a key; set it before the create, or declare it types.NullSnowflake for a reference that may be unset")
	assert.EqualValues(t, 0, count(t, db, &Pet{}), "nothing written")
}

func TestDocUntaggedCompositePart(t *testing.T) {
	type Membership struct {
		Tenant types.Snowflake `gorm:"primaryKey" idkit:"snowflake"` // filled
		ID     types.ObjectID  `gorm:"primaryKey"`                   // not filled: no tag
	}
	db := docDB(t, &Membership{})

	err := db.Create(&Membership{}).Error
	require.ErrorIs(t, err, gormplugin.ErrUntaggedKey)
	assert.EqualError(t, err, `gormplugin: zero composite key part without an idkit tag: Membership.ID (tag it idkit:"objectid" to have it filled)`)
	err = db.Create(&[]Membership{{ID: types.NewObjectID()}, {}}).Error
	require.ErrorIs(t, err, gormplugin.ErrUntaggedKey)
	err = db.Model(&Membership{}).Create(map[string]any{"Tenant": types.Snowflake(5), "ID": types.ObjectID{}}).Error
	require.ErrorIs(t, err, types.ErrZeroID, "a map create is not checked; the zero value fails")
	assert.NotErrorIs(t, err, gormplugin.ErrUntaggedKey)
	assert.EqualValues(t, 0, count(t, db, &Membership{}), "nothing written")

	m := Membership{ID: types.NewObjectID()}
	require.NoError(t, db.Create(&m).Error, "the part set by the caller")
	assert.NotZero(t, m.Tenant, "the tagged part filled")
	assert.EqualValues(t, 1, count(t, db, &Membership{}))
}

func TestDocAutoIncrementKey(t *testing.T) {
	type Account struct {
		ID int64 `gorm:"primaryKey" idkit:"snowflake"` // GORM: auto-increment
	}
	db := docDB(t, &Account{})

	err := db.Create(&Account{}).Error
	require.ErrorIs(t, err, gormplugin.ErrUnsupportedField)
	assert.EqualError(t, err, `gormplugin: unsupported idkit field: Account.ID: GORM makes an integer primary key auto-increment; tag it gorm:"autoIncrement:false" (or use types.Snowflake)`)
	err = db.Model(&Account{}).Create(map[string]any{"id": 0}).Error
	require.ErrorIs(t, err, gormplugin.ErrUnsupportedField)
	assert.EqualValues(t, 0, count(t, db, &Account{}), "nothing written")
}

func TestDocHexStringKey(t *testing.T) {
	base := docDB(t, &Doc{})
	stored := Doc{Name: "a"}
	require.NoError(t, base.Create(&stored).Error)
	require.NoError(t, base.Create(&Doc{Name: "b"}).Error)

	for _, hex := range []string{stored.ID.Hex(), strings.ToUpper(stored.ID.Hex())} {
		c := params{"id": hex}
		var doc Doc
		db := chained(base)
		db.First(&doc, c.Param("id")) // "65a1f0c2e4b0a1b2c3d4e5f6"
		require.NoError(t, db.Error)
		assert.Equal(t, stored, doc, "24 hex digits, either case, are the key")
	}
	var doc Doc
	assert.Error(t, base.First(&doc, params{"id": "abc"}.Param("id")).Error, "any other string is SQL, which the database rejects")
}

func TestDocParseFirst(t *testing.T) {
	db := docDB(t, &Doc{})
	stored := Doc{Name: "a"}
	require.NoError(t, db.Create(&stored).Error)

	var doc Doc
	show := func(c params) int {
		id, err := types.ParseObjectID(c.Param("id")) // errors.Is(err, types.ErrInvalidObjectID)
		if err != nil {
			assert.ErrorIs(t, err, types.ErrInvalidObjectID)
			return http.StatusBadRequest
		}
		db.First(&doc, id)
		if doc.ID != id {
			return http.StatusNotFound
		}
		return http.StatusOK
	}
	assert.Equal(t, http.StatusBadRequest, show(params{"id": "1 OR 1=1"}))
	assert.Equal(t, http.StatusBadRequest, show(params{}))
	assert.Equal(t, http.StatusOK, show(params{"id": stored.ID.Hex()}))
	assert.Equal(t, stored, doc)
}

func TestDocScanOneID(t *testing.T) {
	db := docDB(t, &Doc{})
	stored := Doc{Name: "a"}
	require.NoError(t, db.Create(&stored).Error)
	name := "a"

	var id types.ObjectID
	err := db.Model(&Doc{}).Select("id").Where("name = ?", name).Row().Scan(&id)
	require.NoError(t, err)
	assert.Equal(t, stored.ID, id)

	var ids []types.ObjectID
	db.Model(&Doc{}).Where("name = ?", name).Pluck("id", &ids)
	assert.Equal(t, []types.ObjectID{stored.ID}, ids)

	var one types.ObjectID
	assert.Error(t, db.Model(&Doc{}).Select("id").Where("name = ?", name).Scan(&one).Error, "Scan into one ObjectID fails")
}

func TestDocClearedReference(t *testing.T) {
	db := docDB(t, &Customer{}, &Purchase{})
	customer := Customer{Email: "ann@example.com", Purchases: []Purchase{{Item: "book"}, {Item: "pen"}}}
	require.NoError(t, db.Create(&customer).Error)
	p := customer.Purchases[0]

	db.Model(&customer).Association("Purchases").Delete(&p) // or Clear()
	var got Purchase
	require.NoError(t, db.First(&got, p.ID).Error, "the row is not deleted")
	assert.False(t, got.CustomerID.Valid, "its reference is NULL")
	got.Item = "novel"
	require.NoError(t, db.Save(&got).Error, "a Null form saves again")

	require.NoError(t, db.Model(&customer).Association("Purchases").Clear())
	assert.EqualValues(t, 2, count(t, db, &Purchase{}), "Clear deletes no row")
	assert.EqualValues(t, 0, db.Model(&customer).Association("Purchases").Count())
}

// TestDocNotZeroIDs checks the section's list of keys that are not zero
// IDs: an invalid Null form is refused by GORM itself with
// gorm.ErrInvalidData, a nil pointer panics inside GORM, and a plain 0
// selects no row; nothing is changed.
func TestDocNotZeroIDs(t *testing.T) {
	db := docDB(t, &Doc{}, &Order{})
	require.NoError(t, db.Create(&Doc{Name: "a"}).Error)
	require.NoError(t, db.Create(&Order{Name: "a"}).Error)

	err := db.First(&Doc{}, types.NullObjectID{}).Error
	require.ErrorIs(t, err, gorm.ErrInvalidData)
	assert.NotErrorIs(t, err, types.ErrZeroID)
	assert.Error(t, db.Delete(&Doc{}, types.NullObjectID{}).Error)

	var nilID *types.ObjectID
	assert.Panics(t, func() { db.First(&Doc{}, nilID) })
	var nilSF *types.Snowflake
	assert.Panics(t, func() { db.First(&Order{}, nilSF) })

	var o Order
	assert.ErrorIs(t, db.First(&o, 0).Error, gorm.ErrRecordNotFound, "a plain 0 selects no row")
	require.NoError(t, db.Delete(&Order{}, 0).Error)
	assert.EqualValues(t, 1, count(t, db, &Doc{}))
	assert.EqualValues(t, 1, count(t, db, &Order{}))
}

// TestDocZeroValues checks the Value errors the section "A zero key
// written" describes, and that a part tagged idkit:"-" is the caller's:
// no ErrUntaggedKey, and a zero there fails with types.ErrZeroID.
func TestDocZeroValues(t *testing.T) {
	_, err := sqltypes.HexObjectID{}.Value()
	require.ErrorIs(t, err, types.ErrZeroID)
	assert.Contains(t, err.Error(), "NullHexObjectID")
	v, err := types.NullObjectID{}.Value()
	require.NoError(t, err)
	assert.Nil(t, v, "an unset Null form stores NULL")

	type OwnPart struct {
		Tenant types.Snowflake `gorm:"primaryKey" idkit:"snowflake"`
		ID     types.ObjectID  `gorm:"primaryKey" idkit:"-"`
	}
	db := docDB(t, &OwnPart{})
	err = db.Create(&OwnPart{}).Error
	require.ErrorIs(t, err, types.ErrZeroID)
	assert.NotErrorIs(t, err, gormplugin.ErrUntaggedKey)
	require.NoError(t, db.Create(&OwnPart{ID: types.NewObjectID()}).Error)
	assert.EqualValues(t, 1, count(t, db, &OwnPart{}))
}

// TestDocScanOneUUID checks the UUID column of the section's Scan table on
// every database: as for an ObjectID, GORM takes a [16]byte destination
// for a list, so Scan into one UUID fails and the other forms work.
func TestDocScanOneUUID(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		plainUUIDTable(t, db, db.Dialector.Name(), &uuidKeyed{})
		stored := uuidKeyed{Name: "a"}
		require.NoError(t, db.Create(&stored).Error)
		table := tableOf(t, db, &uuidKeyed{})

		var id types.UUID
		require.NoError(t, db.Model(&uuidKeyed{}).Select("id").Where("name = ?", "a").Row().Scan(&id), "Row().Scan")
		assert.Equal(t, stored.ID, id)
		var ids []types.UUID
		require.NoError(t, db.Model(&uuidKeyed{}).Where("name = ?", "a").Pluck("id", &ids).Error, "Pluck")
		assert.Equal(t, []types.UUID{stored.ID}, ids)
		ids = nil
		require.NoError(t, db.Model(&uuidKeyed{}).Select("id").Where("name = ?", "a").Scan(&ids).Error, "Scan slice")
		assert.Equal(t, []types.UUID{stored.ID}, ids)
		var row uuidKeyed
		require.NoError(t, db.Model(&uuidKeyed{}).Where("name = ?", "a").Scan(&row).Error, "Scan struct")
		assert.Equal(t, stored, row)
		var null types.NullUUID
		require.NoError(t, db.Model(&uuidKeyed{}).Select("id").Where("name = ?", "a").Scan(&null).Error, "Scan NullUUID")
		assert.Equal(t, types.NullUUID{ID: stored.ID, Valid: true}, null)

		var one types.UUID
		assert.Error(t, db.Model(&uuidKeyed{}).Select("id").Where("name = ?", "a").Scan(&one).Error, "Scan into one UUID")
		one = types.UUID{}
		assert.Error(t, db.Raw("SELECT id FROM "+table+" WHERE name = ?", "a").Scan(&one).Error, "Raw Scan into one UUID")
	})
}

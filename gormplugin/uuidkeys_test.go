package gormplugin_test

import (
	"testing"

	googleuuid "github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

type nullUUIDKeyed struct {
	ID   types.NullUUID
	Name string
}

type uuidKeyed struct {
	ID   types.UUID
	Name string
}

// uuidKeyColumn is the key column of plain-DDL tables per GORM dialector.
var uuidKeyColumn = map[string]string{"sqlite": "BLOB", "postgres": "uuid", "mysql": "BINARY(16)"}

func plainUUIDTable(t *testing.T, db *gorm.DB, dialect string, model any) {
	t.Helper()
	ddl := "CREATE TABLE " + tableOf(t, db, model) + " (id " + uuidKeyColumn[dialect] + " NOT NULL PRIMARY KEY, name VARCHAR(64))"
	require.NoError(t, db.Exec(ddl).Error)
}

// TestNullUUIDKeyFilled creates rows keyed by an unset types.NullUUID: the
// plugin fills the key, as it does NullObjectID and NullSnowflake keys.
func TestNullUUIDKeyFilled(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		plainUUIDTable(t, db, db.Dialector.Name(), &nullUUIDKeyed{})
		r := nullUUIDKeyed{Name: "a"}
		require.NoError(t, db.Create(&r).Error)
		require.True(t, r.ID.Valid)
		assert.EqualValues(t, 7, r.ID.ID[6]>>4)
		rows := []nullUUIDKeyed{{Name: "b"}, {Name: "c"}}
		require.NoError(t, db.Create(&rows).Error)
		assert.True(t, rows[0].ID.Valid && rows[1].ID.Valid)
		var got nullUUIDKeyed
		require.NoError(t, db.First(&got, r.ID).Error)
		assert.Equal(t, r, got)
		got = nullUUIDKeyed{}
		require.NoError(t, db.First(&got, r.ID.ID.String()).Error, "UUID string as the key")
		assert.Equal(t, r, got)
	})
}

// TestUUIDKeyStringsAndGoogle finds and deletes rows keyed by types.UUID
// with canonical UUID strings and google/uuid values, on every database.
func TestUUIDKeyStringsAndGoogle(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		plainUUIDTable(t, db, db.Dialector.Name(), &uuidKeyed{})
		rows := []uuidKeyed{{Name: "a"}, {Name: "b"}, {Name: "c"}}
		require.NoError(t, db.Create(&rows).Error)
		var got []uuidKeyed
		require.NoError(t, db.Find(&got, []string{rows[0].ID.String(), rows[1].ID.String()}).Error)
		assert.Len(t, got, 2, "Find with []string")
		var one uuidKeyed
		require.NoError(t, db.First(&one, googleuuid.UUID(rows[2].ID)).Error, "google/uuid inline key")
		assert.Equal(t, rows[2], one)
		res := db.Delete(&uuidKeyed{}, []string{rows[0].ID.String()})
		require.NoError(t, res.Error)
		assert.EqualValues(t, 1, res.RowsAffected, "Delete with []string")
	})
}

type compositeUUID struct {
	Tenant int64      `gorm:"primaryKey;autoIncrement:false"`
	ID     types.UUID `gorm:"primaryKey"`
	Name   string
}

type compositeUUIDTagged struct {
	Tenant int64      `gorm:"primaryKey;autoIncrement:false"`
	ID     types.UUID `gorm:"primaryKey" idkit:"uuid"`
	Name   string
}

// TestCompositeUUIDPart checks that a zero untagged UUID part of a
// composite key fails with ErrUntaggedKey naming idkit:"uuid", and that a
// part tagged idkit:"uuid" is filled.
func TestCompositeUUIDPart(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		for _, m := range []any{&compositeUUID{}, &compositeUUIDTagged{}} {
			ddl := "CREATE TABLE " + tableOf(t, db, m) + " (tenant BIGINT NOT NULL, id " + uuidKeyColumn[db.Dialector.Name()] + " NOT NULL, name VARCHAR(64), PRIMARY KEY (tenant, id))"
			require.NoError(t, db.Exec(ddl).Error)
		}
		err := db.Create(&compositeUUID{Tenant: 1, Name: "x"}).Error
		require.ErrorIs(t, err, gormplugin.ErrUntaggedKey)
		assert.Contains(t, err.Error(), `idkit:"uuid"`)

		r := compositeUUIDTagged{Tenant: 1, Name: "x"}
		require.NoError(t, db.Create(&r).Error)
		assert.False(t, r.ID.IsZero(), "tagged part filled")
		var got compositeUUIDTagged
		require.NoError(t, db.Where("tenant = ? AND id = ?", 1, r.ID).First(&got).Error)
		assert.Equal(t, r, got)
	})
}

//go:build go1.27

package gormplugin_test

import (
	"database/sql"
	"testing"
	"uuid"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/gormplugin"
)

// stdItem is keyed by Go's uuid.UUID, with a *uuid.UUID and a
// sql.Null[uuid.UUID] beside it.
type stdItem struct {
	ID   uuid.UUID
	Name string
	Ref  *uuid.UUID
	Opt  sql.Null[uuid.UUID]
}

type stdOwner struct {
	ID   uuid.UUID
	Name string
	Pets []stdPet `gorm:"foreignKey:OwnerID"`
}

type stdPet struct {
	ID      uuid.UUID
	OwnerID uuid.UUID
	Name    string
}

// stdUUIDColumn is the key column of the plain-DDL tables per database.
var stdUUIDColumn = map[string]string{"sqlite": "BLOB", "postgres": "uuid", "mariadb": "BINARY(16)"}

// stdUUIDTables creates the tables of stdItem, stdOwner and stdPet with
// plain DDL.
func stdUUIDTables(t *testing.T, db *gorm.DB, dialect string) {
	col := stdUUIDColumn[dialect]
	for _, ddl := range []string{
		"CREATE TABLE " + tableOf(t, db, &stdItem{}) + " (id " + col + " NOT NULL PRIMARY KEY, name VARCHAR(64), ref " + col + " NULL, opt " + col + " NULL)",
		"CREATE TABLE " + tableOf(t, db, &stdOwner{}) + " (id " + col + " NOT NULL PRIMARY KEY, name VARCHAR(64))",
		"CREATE TABLE " + tableOf(t, db, &stdPet{}) + " (id " + col + " NOT NULL PRIMARY KEY, owner_id " + col + " NOT NULL, name VARCHAR(64))",
	} {
		require.NoError(t, db.Exec(ddl).Error, ddl)
	}
}

// TestStdUUIDStatements runs every statement form on models keyed by Go's
// uuid.UUID, on tables made by plain DDL, with the plugin as the only step.
func TestStdUUIDStatements(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := openDB(t, d, gormplugin.New())
			stdUUIDTables(t, db, d.Name)

			// Create fills a zero key with a version 7 UUID; a set key is kept.
			a := stdItem{Name: "a"}
			require.NoError(t, db.Create(&a).Error)
			require.NotEqual(t, uuid.Nil(), a.ID)
			assert.EqualValues(t, 7, a.ID[6]>>4)
			set := uuid.NewV4()
			b := stdItem{ID: set, Name: "b", Ref: &a.ID, Opt: sql.Null[uuid.UUID]{V: a.ID, Valid: true}}
			require.NoError(t, db.Create(&b).Error)
			assert.Equal(t, set, b.ID)

			batch := []stdItem{{Name: "c"}, {Name: "d"}, {Name: "e"}}
			require.NoError(t, db.CreateInBatches(&batch, 2).Error)
			for _, r := range batch {
				assert.NotEqual(t, uuid.Nil(), r.ID)
			}

			// Reads by key, every form.
			var got stdItem
			require.NoError(t, db.First(&got, b.ID).Error, "First inline key")
			assert.Equal(t, b, got)
			got = stdItem{}
			require.NoError(t, db.Take(&got, a.ID).Error, "Take inline key")
			assert.Equal(t, a, got, "nil *uuid.UUID and invalid Null read back as NULL")
			got = stdItem{}
			require.NoError(t, db.Where("id = ?", b.ID).First(&got).Error, "Where ?")
			assert.Equal(t, b.ID, got.ID)
			got = stdItem{}
			require.NoError(t, db.Where(&stdItem{ID: b.ID}).First(&got).Error, "Where struct")
			assert.Equal(t, b.ID, got.ID)
			var some []stdItem
			require.NoError(t, db.Find(&some, b.ID).Error, "Find inline key")
			assert.Len(t, some, 1)
			some = nil
			require.NoError(t, db.Find(&some, []uuid.UUID{a.ID, b.ID}).Error, "Find []uuid.UUID")
			assert.Len(t, some, 2)
			var n int64
			require.NoError(t, db.Model(&stdItem{}).Where("ref = ?", &a.ID).Count(&n).Error, "*uuid.UUID arg")
			assert.EqualValues(t, 1, n)
			require.NoError(t, db.Model(&stdItem{}).Where("opt = ?", sql.Null[uuid.UUID]{V: a.ID, Valid: true}).Count(&n).Error, "Null arg")
			assert.EqualValues(t, 1, n)

			// Updates, Save.
			require.NoError(t, db.Model(&a).Updates(map[string]any{"name": "a2", "ref": b.ID}).Error)
			got = stdItem{}
			require.NoError(t, db.First(&got, a.ID).Error)
			assert.Equal(t, "a2", got.Name)
			require.NotNil(t, got.Ref)
			assert.Equal(t, b.ID, *got.Ref)
			got.Name, got.Ref = "a3", nil
			require.NoError(t, db.Save(&got).Error)
			got = stdItem{}
			require.NoError(t, db.First(&got, a.ID).Error)
			assert.Equal(t, "a3", got.Name)
			assert.Nil(t, got.Ref)
			require.NoError(t, db.Model(&stdItem{ID: b.ID}).Updates(stdItem{Name: "b2"}).Error)
			require.NoError(t, db.Model(&stdItem{}).Where("name = ?", "b2").Count(&n).Error)
			assert.EqualValues(t, 1, n)

			// Raw and Exec, in a transaction.
			require.NoError(t, db.Transaction(func(tx *gorm.DB) error {
				if err := tx.Exec("UPDATE "+tableOf(t, db, &stdItem{})+" SET name = ? WHERE id = ?", "in tx", b.ID).Error; err != nil {
					return err
				}
				var name string
				if err := tx.Raw("SELECT name FROM "+tableOf(t, db, &stdItem{})+" WHERE id = ?", b.ID).Scan(&name).Error; err != nil {
					return err
				}
				assert.Equal(t, "in tx", name)
				return tx.Create(&stdItem{Name: "tx"}).Error
			}))
			var id uuid.UUID
			require.NoError(t, db.Raw("SELECT id FROM "+tableOf(t, db, &stdItem{})+" WHERE name = ?", "tx").Row().Scan(&id))
			assert.NotEqual(t, uuid.Nil(), id)

			// Delete by inline key.
			res := db.Delete(&stdItem{}, batch[0].ID)
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)

			// Associations and Preload through uuid.UUID foreign keys.
			owner := stdOwner{Name: "o", Pets: []stdPet{{Name: "p1"}, {Name: "p2"}}}
			require.NoError(t, db.Create(&owner).Error)
			require.NotEqual(t, uuid.Nil(), owner.ID)
			var loaded stdOwner
			require.NoError(t, db.Preload("Pets").First(&loaded, owner.ID).Error)
			assert.Len(t, loaded.Pets, 2)
			for _, p := range loaded.Pets {
				assert.Equal(t, owner.ID, p.OwnerID)
				assert.NotEqual(t, uuid.Nil(), p.ID)
			}
		})
	}
}

// TestStdUUIDAutoMigrate migrates a uuid.UUID-keyed model with the tag the
// docs give per database, and, untagged on MariaDB, checks that the error
// names the tag.
func TestStdUUIDAutoMigrate(t *testing.T) {
	type plain struct {
		ID   uuid.UUID
		Name string
	}
	type pg struct {
		ID   uuid.UUID `gorm:"type:uuid"`
		Name string
	}
	type my struct {
		ID   uuid.UUID `gorm:"type:binary(16)"`
		Name string
	}
	models := map[string]any{"sqlite": &plain{}, "postgres": &pg{}, "mariadb": &my{}}
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := openDB(t, d, gormplugin.New())
			model := models[d.Name]
			require.NoError(t, db.AutoMigrate(model))
			require.NoError(t, db.AutoMigrate(model), "a second AutoMigrate")
			switch m := model.(type) {
			case *plain:
				require.NoError(t, db.Create(m).Error)
				assert.NotEqual(t, uuid.Nil(), m.ID)
			case *pg:
				require.NoError(t, db.Create(m).Error)
				var typ string
				require.NoError(t, db.Raw("SELECT data_type FROM information_schema.columns WHERE table_name = ? AND column_name = 'id'", tableOf(t, db, m)).Scan(&typ).Error)
				assert.Equal(t, "uuid", typ)
			case *my:
				require.NoError(t, db.Create(m).Error)
				err := db.AutoMigrate(&plain{})
				assert.ErrorIs(t, err, gormplugin.ErrUnsupportedField)
				assert.ErrorContains(t, err, `gorm:"type:binary(16)"`)
			}
		})
	}
}

type stdMade struct {
	ID   uuid.UUID
	Code uuid.UUID
	Txt  uuid.UUID
	Name string
}

// TestStdUUIDColumns reads uuid.UUID values the database made itself:
// gen_random_uuid() into uuid and CHAR(36) columns; MariaDB's UUID() into
// its UUID and CHAR(36) column types, and into BINARY(16).
func TestStdUUIDColumns(t *testing.T) {
	for _, d := range dialects {
		if d.Name == "sqlite" {
			continue
		}
		t.Run(d.Name, func(t *testing.T) {
			db := openDB(t, d, gormplugin.New())
			table := tableOf(t, db, &stdMade{})
			ddl := "CREATE TABLE " + table + " (id uuid NOT NULL PRIMARY KEY DEFAULT gen_random_uuid(), code uuid DEFAULT gen_random_uuid(), txt CHAR(36) DEFAULT gen_random_uuid()::text, name VARCHAR(64))"
			made := "INSERT INTO " + table + " (name) VALUES ('db')"
			if d.Name == "mariadb" {
				ddl = "CREATE TABLE " + table + " (id BINARY(16) NOT NULL PRIMARY KEY, code UUID, txt CHAR(36), name VARCHAR(64))"
				made = "INSERT INTO " + table + " (id, code, txt, name) VALUES (UNHEX(REPLACE(UUID(), '-', '')), UUID(), UUID(), 'db')"
			}
			require.NoError(t, db.Exec(ddl).Error)
			require.NoError(t, db.Exec(made).Error)
			var got stdMade
			require.NoError(t, db.Where("name = ?", "db").First(&got).Error)
			assert.NotEqual(t, uuid.Nil(), got.ID)
			assert.NotEqual(t, uuid.Nil(), got.Code)
			assert.NotEqual(t, uuid.Nil(), got.Txt)
			var again stdMade
			require.NoError(t, db.First(&again, got.ID).Error, "lookup by a key the database made")
			assert.Equal(t, got, again)
		})
	}
}

package gormplugin_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// Account is keyed by a Snowflake and unique by Email.
type Account struct {
	ID    types.Snowflake
	Email string `gorm:"size:64;uniqueIndex"`
	Name  string
}

// Device is keyed by an ObjectID and unique by Serial.
type Device struct {
	ID     types.ObjectID
	Serial string `gorm:"size:64;unique"`
	Name   string
}

var onEmail = []clause.Column{{Name: "email"}}

// TestUpsertKeepsStoredKey upserts single rows and batches with each
// OnConflict form and checks that every struct's key is its stored row's
// key, or zero where the database stored nothing for it.
func TestUpsertKeepsStoredKey(t *testing.T) {
	type accountCase struct {
		name  string
		oc    clause.OnConflict
		batch bool
		// wantName is the stored name of "a" after the upsert, and whether
		// the struct for "a" keeps a key.
		wantName string
		keyed    bool
	}
	tests := []accountCase{
		{"UpdateAll", clause.OnConflict{Columns: onEmail, UpdateAll: true}, false, "new", true},
		{"DoUpdates", clause.OnConflict{Columns: onEmail, DoUpdates: clause.AssignmentColumns([]string{"name"})}, false, "new", true},
		{"DoNothing", clause.OnConflict{Columns: onEmail, DoNothing: true}, false, "old", false},
		{"DoNothing no columns", clause.OnConflict{DoNothing: true}, false, "old", false},
		{"batch UpdateAll", clause.OnConflict{Columns: onEmail, UpdateAll: true}, true, "new", true},
		{"batch DoUpdates", clause.OnConflict{Columns: onEmail, DoUpdates: clause.AssignmentColumns([]string{"name"})}, true, "new", true},
		{"batch DoNothing", clause.OnConflict{Columns: onEmail, DoNothing: true}, true, "old", false},
	}
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Account{}, &Device{})
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				require.NoError(t, db.Where("1 = 1").Delete(&Account{}).Error)
				old := Account{Email: "a", Name: "old"}
				require.NoError(t, db.Create(&old).Error)

				rows := []Account{{Email: "a", Name: "new"}, {Email: "b", Name: "new"}}
				if tt.batch {
					require.NoError(t, db.Clauses(tt.oc).Create(&rows).Error)
				} else {
					require.NoError(t, db.Clauses(tt.oc).Create(&rows[0]).Error)
					require.NoError(t, db.Clauses(tt.oc).Create(&rows[1]).Error)
				}

				var stored []Account
				require.NoError(t, db.Order("email").Find(&stored).Error)
				require.Len(t, stored, 2)
				assert.Equal(t, old.ID, stored[0].ID, "the conflicting row keeps its key")
				assert.Equal(t, tt.wantName, stored[0].Name)
				if tt.keyed {
					assert.Equal(t, old.ID, rows[0].ID, "struct of the conflicting row")
				} else {
					assert.Zero(t, rows[0].ID, "struct of the row the database skipped")
				}
				assert.Equal(t, stored[1].ID, rows[1].ID, "struct of the inserted row")
				assert.NotZero(t, rows[1].ID)
			})
		}

		t.Run("ObjectID batch", func(t *testing.T) {
			old := Device{Serial: "s1", Name: "old"}
			require.NoError(t, db.Create(&old).Error)
			rows := []*Device{{Serial: "s1", Name: "new"}, {Serial: "s2", Name: "new"}, {Serial: "s3"}}
			oc := clause.OnConflict{Columns: []clause.Column{{Name: "serial"}}, UpdateAll: true}
			require.NoError(t, db.Clauses(oc).Create(rows).Error)
			var stored []Device
			require.NoError(t, db.Order("serial").Find(&stored).Error)
			require.Len(t, stored, 3)
			assert.Equal(t, old.ID, stored[0].ID)
			assert.Equal(t, "new", stored[0].Name)
			for i := range rows {
				assert.Equal(t, stored[i].ID, rows[i].ID, "row %d", i)
			}
		})

		t.Run("unique index looked up without columns", func(t *testing.T) {
			if db.Dialector.Name() != "mysql" {
				t.Skip("PostgreSQL and SQLite need the conflict columns for DO UPDATE")
			}
			require.NoError(t, db.Where("1 = 1").Delete(&Account{}).Error)
			old := Account{Email: "a", Name: "old"}
			require.NoError(t, db.Create(&old).Error)
			rows := []Account{{Email: "b"}, {Email: "a", Name: "new"}}
			require.NoError(t, db.Clauses(clause.OnConflict{UpdateAll: true}).Create(&rows).Error)
			assert.Equal(t, old.ID, rows[1].ID)
			var b Account
			require.NoError(t, db.First(&b, "email = ?", "b").Error)
			assert.Equal(t, b.ID, rows[0].ID)
		})
	})
}

// Member has a unique index GORM does not know about.
type Member struct {
	ID    types.Snowflake
	Email string `gorm:"size:64"`
	Name  string
}

// TestUpsertKeyUnknown: on MySQL/MariaDB, an update on conflict with a
// unique index the model does not declare, and no conflict columns, leaves
// the plugin no way to find the stored key: the create fails with
// ErrUpsertKey, is rolled back, and the struct's key is zero.
func TestUpsertKeyUnknown(t *testing.T) {
	d := dialects[2]
	require.Equal(t, "mariadb", d.Name)
	db := openDB(t, d, gormplugin.New(gormplugin.WithNode(1)))
	migrate(t, db, &Member{})
	stmt := &gorm.Statement{DB: db}
	require.NoError(t, stmt.Parse(&Member{}))
	require.NoError(t, db.Exec("CREATE UNIQUE INDEX "+stmt.Quote(stmt.Schema.Table+"_email")+" ON "+stmt.Quote(stmt.Schema.Table)+" (email)").Error)
	old := Member{Email: "a", Name: "old"}
	require.NoError(t, db.Create(&old).Error)

	m := Member{Email: "a", Name: "new"}
	err := db.Clauses(clause.OnConflict{UpdateAll: true}).Create(&m).Error
	assert.ErrorIs(t, err, gormplugin.ErrUpsertKey)
	assert.Zero(t, m.ID)
	var stored []Member
	require.NoError(t, db.Find(&stored).Error)
	assert.Equal(t, []Member{old}, stored, "the failed create is rolled back")
}

// Shop has branches: after an upsert GORM gives the branches the stored
// shop's key.
type Shop struct {
	ID       types.Snowflake
	Name     string `gorm:"size:64;uniqueIndex"`
	Branches []Branch
}

type Branch struct {
	ID     types.ObjectID
	ShopID types.Snowflake
	City   string
}

func TestUpsertAssociationsGetStoredKey(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Shop{}, &Branch{})
		old := Shop{Name: "s"}
		require.NoError(t, db.Create(&old).Error)
		s := Shop{Name: "s", Branches: []Branch{{City: "Oslo"}}}
		oc := clause.OnConflict{Columns: []clause.Column{{Name: "name"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
		require.NoError(t, db.Clauses(oc).Create(&s).Error)
		assert.Equal(t, old.ID, s.ID)
		var branches []Branch
		require.NoError(t, db.Find(&branches).Error)
		require.Len(t, branches, 1)
		assert.Equal(t, old.ID, branches[0].ShopID, "the branch points at the stored shop")
	})
}

// TestAssociationCreateNoExtraQuery: GORM saves associations as upserts on
// their primary key, which a key the plugin made cannot hit, so a create
// with children runs its INSERTs and nothing else.
func TestAssociationCreateNoExtraQuery(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Shop{}, &Branch{})
		r := &ddlRecorder{Interface: logger.Discard}
		s := Shop{Name: "s", Branches: []Branch{{City: "Oslo"}, {City: "Rome"}}}
		require.NoError(t, db.Session(&gorm.Session{Logger: r}).Create(&s).Error)
		require.Len(t, r.stmt, 2, "%q", r.stmt)
		for _, q := range r.stmt {
			assert.True(t, strings.HasPrefix(q, "INSERT"), q)
			assert.NotContains(t, q, "RETURNING")
		}
	})
}

// TestUpsertMaps upserts map rows through Model: each map's key becomes the
// stored row's key, or zero for a row DO NOTHING skipped.
func TestUpsertMaps(t *testing.T) {
	update := clause.OnConflict{Columns: onEmail, DoUpdates: clause.AssignmentColumns([]string{"name"})}
	skip := clause.OnConflict{Columns: onEmail, DoNothing: true}
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Account{})
		old := Account{Email: "a", Name: "old"}
		require.NoError(t, db.Create(&old).Error)

		m := map[string]any{"email": "a", "name": "map"}
		require.NoError(t, db.Model(&Account{}).Clauses(update).Create(m).Error)
		assert.Equal(t, old.ID, m["id"], "single map")

		ms := []map[string]any{{"email": "a", "name": "maps"}, {"email": "b", "name": "maps"}}
		require.NoError(t, db.Model(&Account{}).Clauses(update).Create(&ms).Error)
		require.Len(t, ms, 2)
		var b Account
		require.NoError(t, db.First(&b, "email = ?", "b").Error)
		assert.Equal(t, old.ID, ms[0]["id"], "conflicting map of a batch")
		assert.Equal(t, b.ID, ms[1]["id"], "inserted map of a batch")

		skipped := map[string]any{"email": "a", "name": "skipped"}
		require.NoError(t, db.Model(&Account{}).Clauses(skip).Create(skipped).Error)
		assert.Equal(t, types.Snowflake(0), skipped["id"], "map DO NOTHING skipped")

		var stored Account
		require.NoError(t, db.First(&stored, old.ID).Error)
		assert.Equal(t, "maps", stored.Name)
	})
}

// TestUpsertKeepsSetKeys: a key the caller set is never overwritten, also
// in an upsert batch whose other rows get their keys from the plugin.
func TestUpsertKeepsSetKeys(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Account{})
		old := Account{Email: "a", Name: "old"}
		require.NoError(t, db.Create(&old).Error)
		set := types.Snowflake(12345)
		rows := []Account{{ID: set, Email: "c"}, {Email: "a", Name: "new"}}
		oc := clause.OnConflict{Columns: onEmail, UpdateAll: true}
		require.NoError(t, db.Clauses(oc).Create(&rows).Error)
		assert.Equal(t, set, rows[0].ID, "set key")
		assert.Equal(t, old.ID, rows[1].ID, "filled key of the conflicting row")
	})
}

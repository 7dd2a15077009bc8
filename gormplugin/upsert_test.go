package gormplugin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

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

package gormplugin_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

var errRetry = errors.New("injected failure: retry")

// TestRetriedUpsertNamesStoredRow: the key the plugin filled on a
// rolled-back attempt is kept in the struct; another request then stores a
// row with the same email; the retried upsert must leave the stored row's
// key in the struct, not the key of the rolled-back attempt.
func TestRetriedUpsertNamesStoredRow(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Account{})
		cases := []struct {
			name string
			oc   clause.OnConflict
		}{
			{"UpdateAll", clause.OnConflict{Columns: onEmail, UpdateAll: true}},
			{"DoUpdates", clause.OnConflict{Columns: onEmail, DoUpdates: clause.AssignmentColumns([]string{"name"})}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				require.NoError(t, db.Where("1 = 1").Delete(&Account{}).Error)
				row := Account{Email: "r", Name: "mine"}
				batch := []Account{{Email: "r2", Name: "mine"}, {Email: "n2", Name: "mine"}}
				m := map[string]any{"email": "r3", "name": "mine"}
				err := db.Transaction(func(tx *gorm.DB) error {
					require.NoError(t, tx.Clauses(tc.oc).Create(&row).Error)
					require.NoError(t, tx.Clauses(tc.oc).Create(&batch).Error)
					require.NoError(t, tx.Model(&Account{}).Clauses(tc.oc).Create(m).Error)
					return errRetry
				})
				require.ErrorIs(t, err, errRetry)
				require.NotZero(t, row.ID, "filled on the first attempt")
				require.NotZero(t, m["id"])

				theirs := []Account{{Email: "r", Name: "theirs"}, {Email: "r2", Name: "theirs"}, {Email: "r3", Name: "theirs"}}
				require.NoError(t, db.Create(&theirs).Error)

				require.NoError(t, db.Transaction(func(tx *gorm.DB) error {
					if err := tx.Clauses(tc.oc).Create(&row).Error; err != nil {
						return err
					}
					if err := tx.Clauses(tc.oc).Create(&batch).Error; err != nil {
						return err
					}
					return tx.Model(&Account{}).Clauses(tc.oc).Create(m).Error
				}))
				assert.Equal(t, theirs[0].ID, row.ID, "single row")
				assert.Equal(t, theirs[1].ID, batch[0].ID, "conflicting row of a batch")
				assert.Equal(t, theirs[2].ID, m["id"], "map")
				var n2 Account
				require.NoError(t, db.First(&n2, "email = ?", "n2").Error)
				assert.Equal(t, n2.ID, batch[1].ID, "inserted row of a batch")
				var stored Account
				require.NoError(t, db.First(&stored, row.ID).Error)
				assert.Equal(t, "mine", stored.Name)
			})
		}
	})
}

// TestRetriedUpsertLoop runs 8 goroutines of upserts, each in a
// transaction retried on any error (an injected failure after the upsert
// stands for a timeout, besides the database's deadlocks and serialization
// failures), reusing its structs; each struct must end with the key of the
// row stored for its email.
func TestRetriedUpsertLoop(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			retriedUpsertLoop(t, openDB(t, quickDeadlocks(d), gormplugin.New(gormplugin.WithNode(1))))
		})
	}
}

func retriedUpsertLoop(t *testing.T, db *gorm.DB) {
	const workers, each, emails = 8, 10, 12
	{
		migrate(t, db, &Account{})
		if db.Dialector.Name() == "sqlite" {
			sqlDB, err := db.DB()
			require.NoError(t, err)
			sqlDB.SetMaxOpenConns(1)
		}
		ocs := []clause.OnConflict{
			{Columns: onEmail, UpdateAll: true},
			{Columns: onEmail, DoUpdates: clause.AssignmentColumns([]string{"name"})},
		}
		var (
			mu      sync.Mutex
			singles []*Account
			maps    []map[string]any
			wg      sync.WaitGroup
		)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(7, uint64(w)))
				for i := range each {
					oc := ocs[i%len(ocs)]
					e := r.Perm(emails)
					row := &Account{Email: fmt.Sprintf("e%d", e[0]), Name: "w"}
					batch := []*Account{{Email: fmt.Sprintf("e%d", e[1])}, {Email: fmt.Sprintf("e%d", e[2])}}
					m := map[string]any{"email": fmt.Sprintf("e%d", e[3]), "name": "m"}
					var err error
					for attempt := 0; attempt < 50; attempt++ {
						err = db.Transaction(func(tx *gorm.DB) error {
							if err := tx.Clauses(oc).Create(row).Error; err != nil {
								return err
							}
							if err := tx.Clauses(oc).Create(&batch).Error; err != nil {
								return err
							}
							if err := tx.Model(&Account{}).Clauses(oc).Create(m).Error; err != nil {
								return err
							}
							if r.IntN(3) == 0 {
								return errRetry
							}
							return nil
						})
						if err == nil {
							break
						}
					}
					if err != nil {
						t.Errorf("worker %d: %v", w, err)
						return
					}
					mu.Lock()
					singles = append(singles, row)
					singles = append(singles, batch...)
					maps = append(maps, m)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		var stored []Account
		require.NoError(t, db.Find(&stored).Error)
		byEmail := map[string]types.Snowflake{}
		for _, s := range stored {
			byEmail[s.Email] = s.ID
		}
		wrong := 0
		for _, s := range singles {
			if byEmail[s.Email] != s.ID {
				wrong++
			}
		}
		for _, m := range maps {
			if byEmail[m["email"].(string)] != m["id"] {
				wrong++
			}
		}
		assert.Zero(t, wrong, "structs and maps whose key is not their stored row's, of %d", len(singles)+len(maps))
		assert.Len(t, singles, workers*each*3)
	}
}

// TestUpsertLargeBatch upserts 700 rows, half of them conflicting, in one
// statement: the read-back is split so SQLite's 500-term limit on a
// compound SELECT is never met, and every struct gets its stored key.
func TestUpsertLargeBatch(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Account{})
		const n = 700
		var old []Account
		for i := range n / 2 {
			old = append(old, Account{Email: fmt.Sprintf("e%d", i*2), Name: "old"})
		}
		require.NoError(t, db.CreateInBatches(&old, 100).Error)
		rows := make([]Account, n)
		for i := range rows {
			rows[i] = Account{Email: fmt.Sprintf("e%d", i), Name: "new"}
		}
		oc := clause.OnConflict{Columns: onEmail, DoUpdates: clause.AssignmentColumns([]string{"name"})}
		require.NoError(t, db.Clauses(oc).Create(&rows).Error)
		var stored []Account
		require.NoError(t, db.Find(&stored).Error)
		require.Len(t, stored, n)
		byEmail := map[string]types.Snowflake{}
		for _, s := range stored {
			byEmail[s.Email] = s.ID
		}
		for i, r := range rows {
			require.Equal(t, byEmail[r.Email], r.ID, "row %d", i)
		}
		for _, o := range old {
			require.Equal(t, o.ID, byEmail[o.Email])
		}
	})
}

// Audited has an AfterCreate hook, which runs before GORM commits: it must
// see the stored row's key after an upsert, so the plugin resolves keys
// before the hook on every database.
type Audited struct {
	ID    types.Snowflake
	Email string `gorm:"size:64;uniqueIndex"`
	Name  string
	seen  types.Snowflake
}

func (a *Audited) AfterCreate(*gorm.DB) error {
	a.seen = a.ID
	return nil
}

func TestUpsertKeyBeforeAfterCreateHook(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Audited{})
		old := Audited{Email: "a"}
		require.NoError(t, db.Create(&old).Error)
		again := Audited{Email: "a", Name: "again"}
		require.NoError(t, db.Clauses(clause.OnConflict{Columns: onEmail, DoUpdates: clause.AssignmentColumns([]string{"name"})}).Create(&again).Error)
		assert.Equal(t, old.ID, again.ID)
		assert.Equal(t, old.ID, again.seen, "the hook saw the stored key")
	})
}

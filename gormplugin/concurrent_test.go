package gormplugin_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm/clause"

	"github.com/idkit-go/idkit/gormplugin"
)

// TestConcurrentCreates creates from many goroutines at once, the first
// creates of each model racing to prepare it, and checks every key is
// distinct.
func TestConcurrentCreates(t *testing.T) {
	db := openDB(t, dialects[1], gormplugin.New(gormplugin.WithNode(4)))
	migrate(t, db, &Order{}, &Legacy{})
	const workers, each = 8, 20
	var (
		mu   sync.Mutex
		keys = map[int64]bool{}
		wg   sync.WaitGroup
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				var id int64
				if (w+i)%2 == 0 {
					o := &Order{Name: "c"}
					if err := db.Create(o).Error; err != nil {
						t.Error(err)
						return
					}
					id = int64(o.ID)
				} else {
					m := map[string]any{"name": "l"}
					if err := db.Model(&Legacy{}).Create(m).Error; err != nil {
						t.Error(err)
						return
					}
					id = m["id"].(int64)
				}
				mu.Lock()
				if keys[id] {
					t.Errorf("duplicate key %d", id)
				}
				keys[id] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Len(t, keys, workers*each)
	var n int64
	require.NoError(t, db.Model(&Order{}).Count(&n).Error)
	var m int64
	require.NoError(t, db.Model(&Legacy{}).Count(&m).Error)
	require.EqualValues(t, workers*each, n+m)
}

// TestConcurrentKeyLookups looks rows up, upserts and deletes by ObjectID
// key from many goroutines, the first statements racing to prepare the
// model.
func TestConcurrentKeyLookups(t *testing.T) {
	db := openDB(t, dialects[1], gormplugin.New(gormplugin.WithNode(4)))
	migrate(t, db, &Device{})
	const workers, each = 8, 10
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				d := Device{Serial: fmt.Sprintf("s%d-%d", w, i)}
				if err := db.Create(&d).Error; err != nil {
					t.Error(err)
					return
				}
				var got Device
				if err := db.First(&got, d.ID).Error; err != nil || got.Serial != d.Serial {
					t.Errorf("First: %v %q", err, got.Serial)
					return
				}
				again := Device{Serial: d.Serial, Name: "again"}
				oc := clause.OnConflict{Columns: []clause.Column{{Name: "serial"}}, UpdateAll: true}
				if err := db.Clauses(oc).Create(&again).Error; err != nil || again.ID != d.ID {
					t.Errorf("upsert: %v, key %s want %s", err, again.ID, d.ID)
					return
				}
				if res := db.Delete(&Device{}, d.ID); res.Error != nil || res.RowsAffected != 1 {
					t.Errorf("Delete: %v, %d rows", res.Error, res.RowsAffected)
					return
				}
			}
		}()
	}
	wg.Wait()
	var n int64
	require.NoError(t, db.Model(&Device{}).Count(&n).Error)
	require.Zero(t, n)
}

package gormplugin_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

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

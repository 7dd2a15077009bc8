package gormplugin_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// TwoPoolsEvent is keyed by a Snowflake.
type TwoPoolsEvent struct {
	ID   types.Snowflake
	Pool int
}

// TestTwoPoolsOneNode opens two GORM pools on one database, a main
// pool and a jobs pool as a service has them, each with the plugin on node
// 7, and inserts batches from both at once: no batch may fail on a
// duplicate key, and every row must be in the table.
func TestTwoPoolsOneNode(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			main := openDB(t, d, gormplugin.New(gormplugin.WithNode(7)))
			jobs, err := gorm.Open(main.Dialector, &gorm.Config{NamingStrategy: main.NamingStrategy, Logger: logger.Discard})
			if err != nil {
				t.Fatal(err)
			}
			if err := jobs.Use(gormplugin.New(gormplugin.WithNode(7))); err != nil {
				t.Fatal(err)
			}
			mainDB, _ := main.DB()
			jobsDB, _ := jobs.DB()
			if mainDB == jobsDB {
				t.Fatal("one pool, not two")
			}
			t.Cleanup(func() { jobsDB.Close() })
			twoPools(t, main, jobs)
		})
	}
}

func twoPools(t *testing.T, main, jobs *gorm.DB) {
	migrate(t, main, &TwoPoolsEvent{})
	const batches, size = 1000, 100
	var failed atomic.Int64
	var wg sync.WaitGroup
	for p, db := range []*gorm.DB{main, jobs} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range batches / 2 {
				rows := make([]TwoPoolsEvent, size)
				for j := range rows {
					rows[j].Pool = p
				}
				if err := db.Create(&rows).Error; err != nil && failed.Add(1) <= 3 {
					t.Errorf("pool %d: %v", p, err)
				}
			}
		}()
	}
	wg.Wait()
	var n, distinct int64
	if err := main.Model(&TwoPoolsEvent{}).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	if err := main.Model(&TwoPoolsEvent{}).Distinct("id").Count(&distinct).Error; err != nil {
		t.Fatal(err)
	}
	if failed.Load() > 0 || n != batches*size || distinct != n {
		t.Fatalf("%d of %d batches failed; %d rows, %d distinct keys; want %d", failed.Load(), batches, n, distinct, batches*size)
	}
}

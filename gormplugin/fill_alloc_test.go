package gormplugin_test

import (
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// TestFillAllocatesNothingPerRow pins that filling keys costs no heap
// allocation per row: a Create of 1,000 rows allocates no more than one of
// 10, give or take an allocation a generator makes now and then (a new
// block of values), never one per row. Only the plugin's callbacks run (GORM's own are removed), so what is
// counted is the plugin's fill and the Create call around it.
func TestFillAllocatesNothingPerRow(t *testing.T) {
	plugin := gormplugin.New(gormplugin.WithNode(1, generator.WithBorrowAhead(time.Hour)))
	db := openDB(t, dialects[0], plugin)
	onlyPluginCallbacks(t, db)
	t.Run("snowflake", func(t *testing.T) {
		allocsPerRow(t, db, func(r *fillSnowflake) { r.ID = 0 }, func(r *fillSnowflake) bool { return r.ID != 0 })
	})
	t.Run("objectid", func(t *testing.T) {
		allocsPerRow(t, db, func(r *fillObjectID) { r.ID = types.ObjectID{} }, func(r *fillObjectID) bool { return !r.ID.IsZero() })
	})
	t.Run("uuid", func(t *testing.T) {
		allocsPerRow(t, db, func(r *fillUUID) { r.ID = types.UUID{} }, func(r *fillUUID) bool { return r.ID != types.UUID{} })
	})
}

// allocsPerRow fails t if a Create of 1,000 rows allocates more than one
// of 10 rows by one allocation per 100 rows or more, or leaves a key
// unfilled.
func allocsPerRow[T any](t *testing.T, db *gorm.DB, reset func(*T), filled func(*T) bool) {
	t.Helper()
	allocs := func(n int) float64 {
		rows := make([]T, n)
		return testing.AllocsPerRun(20, func() {
			for i := range rows {
				reset(&rows[i])
			}
			if err := db.Create(&rows).Error; err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				if !filled(&rows[i]) {
					t.Fatalf("row %d of %d: key not filled", i, n)
				}
			}
		})
	}
	few, many := allocs(10), allocs(1000)
	if perRow := (many - few) / 990; perRow >= 0.01 {
		t.Errorf("a Create of 1,000 rows allocates %v times, of 10 rows %v times: %.2f allocations per row", many, few, perRow)
	}
}

// onlyPluginCallbacks removes GORM's own create callbacks from db, so that
// a Create runs the plugin's fill alone.
func onlyPluginCallbacks(tb testing.TB, db *gorm.DB) {
	tb.Helper()
	create := db.Callback().Create()
	for _, name := range []string{"gorm:begin_transaction", "gorm:before_create", "gorm:save_before_associations",
		"gorm:create", "gorm:save_after_associations", "gorm:after_create", "gorm:commit_or_rollback_transaction"} {
		if err := create.Remove(name); err != nil {
			tb.Fatal(err)
		}
	}
}

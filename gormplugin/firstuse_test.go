package gormplugin_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// Models of TestConcurrentFirstUse, used by no other test.
type (
	firstUseDoc struct {
		ID   types.ObjectID
		Name string
	}
	firstUseOrder struct {
		ID   types.Snowflake
		Name string
	}
	firstUseItem struct {
		ID   types.UUID
		Name string
	}
	// firstUseRaw's key column is NOT NULL only if its tag says so.
	firstUseRaw struct {
		ID   []byte `gorm:"primaryKey;size:12" idkit:"objectid"`
		Name string
	}
	// firstUseAutoInc's key GORM makes auto-increment: the plugin refuses
	// to fill it.
	firstUseAutoInc struct {
		ID   int64 `gorm:"primaryKey" idkit:"snowflake"`
		Name string
	}
)

var firstUseModels = []any{&firstUseDoc{}, &firstUseOrder{}, &firstUseItem{}, &firstUseRaw{}, &firstUseAutoInc{}}

// TestConcurrentFirstUse uses fresh models on one *gorm.DB from several
// goroutines at once, with no setup beforehand: one runs AutoMigrate while
// the others look rows up by key and create rows (retrying until the tables
// exist), then read each row back by its key. AutoMigrate must make the
// same key columns as on a database where nothing else used the models
// first, and under -race no goroutine may write what another reads (the
// plugin must not change GORM's shared schema of a model). Each round
// opens a new *gorm.DB, so that its models are parsed afresh.
func TestConcurrentFirstUse(t *testing.T) {
	const rounds, workers, rows = 3, 4, 4
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			ref := openDB(t, d, gormplugin.New(gormplugin.WithNode(1)))
			migrate(t, ref, firstUseModels...)
			want := keyColumns(t, ref)
			for range rounds {
				db := openDB(t, d, gormplugin.New(gormplugin.WithNode(1)))
				firstUse(t, db, workers, rows)
				assert.Equal(t, want, keyColumns(t, db), "key columns after concurrent first use")
			}
		})
	}
}

// keyColumns describes the key column of each model of firstUseModels, the
// table's name left out.
func keyColumns(t *testing.T, db *gorm.DB) []string {
	t.Helper()
	var out []string
	for _, m := range firstUseModels {
		stmt := &gorm.Statement{DB: db}
		require.NoError(t, stmt.Parse(m))
		c := describeColumn(t, db, stmt.Schema.Table, "id")
		desc := strings.Join([]string{c.Type, c.Default.String, c.Extra}, " | ")
		if db.Dialector.Name() == "sqlite" {
			// describeColumn counts a primary key as not nullable; SQLite
			// lets a non-integer one hold NULL unless it says NOT NULL.
			var notNull int
			require.NoError(t, db.Raw(`SELECT "notnull" FROM pragma_table_info(?) WHERE name = 'id'`, stmt.Schema.Table).Row().Scan(&notNull))
			c.Nullable = notNull == 0
		}
		if c.Nullable {
			desc += " | NULL"
		}
		out = append(out, stmt.Schema.Name+": "+strings.ReplaceAll(desc, stmt.Schema.Table, "T"))
	}
	return out
}

func firstUse(t *testing.T, db *gorm.DB, workers, rows int) {
	var (
		start    = make(chan struct{})
		migrated = make(chan struct{})
		wg       sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(migrated)
		<-start
		if err := db.AutoMigrate(firstUseModels...); err != nil {
			t.Errorf("AutoMigrate: %v", err)
		}
	}()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range rows {
				if err := firstUseRow(db, migrated, (w+i)%5); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
}

// firstUseRow uses one model: a lookup that finds nothing, a create, and a
// lookup of the row made; the statements that may run before AutoMigrate
// has made the table are retried until then.
func firstUseRow(db *gorm.DB, migrated <-chan struct{}, model int) error {
	switch model {
	case 0:
		var got firstUseDoc
		if err := retry(migrated, func() error { return db.First(&got, types.NewObjectID()).Error }); !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		row := firstUseDoc{Name: "d"}
		if err := retry(migrated, func() error { return db.Create(&row).Error }); err != nil {
			return err
		}
		if err := db.First(&got, row.ID).Error; err != nil || got != row {
			return errors.Join(err, errors.New("doc read back differs"))
		}
	case 1:
		rows := []firstUseOrder{{Name: "a"}, {Name: "b"}}
		if err := retry(migrated, func() error { return db.Create(&rows).Error }); err != nil {
			return err
		}
		var got firstUseOrder
		if err := db.First(&got, rows[1].ID).Error; err != nil || got != rows[1] {
			return errors.Join(err, errors.New("order read back differs"))
		}
	case 2:
		m := map[string]any{"name": "i"}
		if err := retry(migrated, func() error { return db.Model(&firstUseItem{}).Create(m).Error }); err != nil {
			return err
		}
		id, _ := m["id"].(types.UUID)
		var got firstUseItem
		if err := db.First(&got, id).Error; err != nil || got.ID != id || id.IsZero() {
			return errors.Join(err, errors.New("item read back differs"))
		}
	case 3:
		row := firstUseRaw{Name: "r"}
		if err := retry(migrated, func() error { return db.Create(&row).Error }); err != nil {
			return err
		}
		var got firstUseRaw
		if err := db.First(&got, "id = ?", row.ID).Error; err != nil || got.Name != row.Name || len(row.ID) != 12 {
			return errors.Join(err, errors.New("raw read back differs"))
		}
	case 4:
		row := firstUseAutoInc{Name: "a"}
		if err := db.Create(&row).Error; !errors.Is(err, gormplugin.ErrUnsupportedField) {
			return errors.Join(err, errors.New("auto-increment key: want ErrUnsupportedField"))
		}
	}
	return nil
}

// retry runs f until it returns nil or gorm.ErrRecordNotFound, or, once
// migrated is closed, returns what f returns.
func retry(migrated <-chan struct{}, f func() error) error {
	for {
		select {
		case <-migrated:
			return f()
		default:
		}
		if err := f(); err == nil || errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}

package gormplugin_test

import (
	"encoding/binary"
	"strconv"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

const (
	benchRows  = 10000
	benchBatch = 1000
)

// benchPlugin is keyed by the plugin.
type benchPlugin struct {
	ID     types.Snowflake
	Name   string
	Amount int64
}

// benchHook is keyed by a hand-written BeforeCreate hook.
type benchHook struct {
	ID     types.Snowflake
	Name   string
	Amount int64
}

var hookGen = func() *generator.Snowflake {
	g, err := generator.NewSnowflake(2)
	if err != nil {
		panic(err)
	}
	return g
}()

func (r *benchHook) BeforeCreate(*gorm.DB) error {
	if r.ID == 0 {
		id, err := hookGen.Next()
		if err != nil {
			return err
		}
		r.ID = id
	}
	return nil
}

// benchSerial is keyed by the database: BIGSERIAL / INTEGER PRIMARY KEY
// AUTOINCREMENT, read back with RETURNING.
type benchSerial struct {
	ID     int64 `gorm:"primaryKey;autoIncrement"`
	Name   string
	Amount int64
}

func benchRowsOf[T any](set func(*T, int)) []T {
	rows := make([]T, benchRows)
	for i := range rows {
		set(&rows[i], i)
	}
	return rows
}

// BenchmarkInsert10k inserts 10,000 rows in batches of 1,000 per
// iteration, side by side: keys filled by the plugin, by a hand-written
// BeforeCreate hook, and by the database (BIGSERIAL or AUTOINCREMENT with
// RETURNING). The table is emptied between iterations, outside the timer.
func BenchmarkInsert10k(b *testing.B) {
	for _, d := range dialects[:2] { // SQLite and PostgreSQL
		b.Run(d.Name, func(b *testing.B) {
			withPlugin := openDB(b, d, gormplugin.New(gormplugin.WithNode(1)))
			plain := withPlugin.Session(&gorm.Session{NewDB: true})
			// A handle without the plugin, on the same database.
			plainDB, err := gorm.Open(withPlugin.Dialector, withPlugin.Config)
			if err == nil {
				plain = plainDB
			}
			if d.Name == "sqlite" {
				// One writer: SQLite serialises writes anyway.
				sqlDB, _ := withPlugin.DB()
				sqlDB.SetMaxOpenConns(1)
			}
			migrate(b, withPlugin, &benchPlugin{}, &benchHook{}, &benchSerial{})

			b.Run("plugin", func(b *testing.B) {
				rows := benchRowsOf(func(r *benchPlugin, i int) { r.Name, r.Amount = "n"+strconv.Itoa(i), int64(i) })
				runInsert(b, withPlugin, &benchPlugin{}, rows, func() {
					for i := range rows {
						rows[i].ID = 0
					}
				})
			})
			b.Run("hook", func(b *testing.B) {
				rows := benchRowsOf(func(r *benchHook, i int) { r.Name, r.Amount = "n"+strconv.Itoa(i), int64(i) })
				runInsert(b, plain, &benchHook{}, rows, func() {
					for i := range rows {
						rows[i].ID = 0
					}
				})
			})
			b.Run("database", func(b *testing.B) {
				rows := benchRowsOf(func(r *benchSerial, i int) { r.Name, r.Amount = "n"+strconv.Itoa(i), int64(i) })
				runInsert(b, plain, &benchSerial{}, rows, func() {
					for i := range rows {
						rows[i].ID = 0
					}
				})
			})
		})
	}
}

func runInsert[T any](b *testing.B, db *gorm.DB, model any, rows []T, reset func()) {
	empty := func() {
		reset()
		if err := db.Session(&gorm.Session{AllowGlobalUpdate: true}).Delete(model).Error; err != nil {
			b.Fatal(err)
		}
	}
	insert := func() {
		if err := db.CreateInBatches(&rows, benchBatch).Error; err != nil {
			b.Fatal(err)
		}
	}
	empty()
	insert() // warm up: table pages, caches and prepared plans
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		empty()
		b.StartTimer()
		insert()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
}

// BenchmarkBuild1000 measures the client side alone: building one INSERT
// of 1,000 rows in a dry run, with keys from the plugin or from a
// hand-written hook.
func BenchmarkBuild1000(b *testing.B) {
	db := openDB(b, dialects[0], nil)
	withPlugin := openDB(b, dialects[0], gormplugin.New(gormplugin.WithNode(1)))
	b.Run("plugin", func(b *testing.B) {
		rows := make([]benchPlugin, benchBatch)
		dry := withPlugin.Session(&gorm.Session{DryRun: true})
		b.ReportAllocs()
		for b.Loop() {
			for i := range rows {
				rows[i].ID = 0
			}
			if err := dry.Create(&rows).Error; err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hook", func(b *testing.B) {
		rows := make([]benchHook, benchBatch)
		dry := db.Session(&gorm.Session{DryRun: true})
		b.ReportAllocs()
		for b.Loop() {
			for i := range rows {
				rows[i].ID = 0
			}
			if err := dry.Create(&rows).Error; err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Models for BenchmarkFill1000.
type (
	fillSerial struct {
		ID   uint64 `gorm:"primaryKey"`
		Name string
	}
	fillSnowflake struct {
		ID   types.Snowflake
		Name string
	}
	fillObjectID struct {
		ID   types.ObjectID
		Name string
	}
	fillUUID struct {
		ID   types.UUID
		Name string
	}
	fillKeyFunc struct {
		ID   benchKey
		Name string
	}
	benchKey [16]byte
)

// BenchmarkFill1000 measures the plugin's fill alone: a Create of 1,000
// rows on a handle whose Create processor runs only the plugin's callbacks
// (GORM's own are removed, so nothing is built or sent). ns/row is the
// plugin's cost per row, key generation included (for "uuid",
// types.NewUUIDv7); "serial" is a model the
// plugin has nothing to fill for, the cost of the Create call itself.
func BenchmarkFill1000(b *testing.B) {
	var n uint64
	plugin := gormplugin.New(gormplugin.WithNode(1, generator.WithBorrowAhead(time.Hour)),
		gormplugin.WithKeyFunc(func() (benchKey, error) {
			n++
			var k benchKey
			binary.BigEndian.PutUint64(k[8:], n)
			return k, nil
		}))
	db := openDB(b, dialects[0], plugin)
	onlyPluginCallbacks(b, db)
	b.Run("serial", func(b *testing.B) {
		benchFill(b, db, func(r *fillSerial) { r.ID = 0 })
	})
	b.Run("snowflake", func(b *testing.B) {
		benchFill(b, db, func(r *fillSnowflake) { r.ID = 0 })
	})
	b.Run("objectid", func(b *testing.B) {
		benchFill(b, db, func(r *fillObjectID) { r.ID = types.ObjectID{} })
	})
	b.Run("uuid", func(b *testing.B) {
		benchFill(b, db, func(r *fillUUID) { r.ID = types.UUID{} })
	})
	b.Run("keyfunc", func(b *testing.B) {
		benchFill(b, db, func(r *fillKeyFunc) { r.ID = benchKey{} })
	})
	for _, f := range moreFillBenchmarks {
		f(b, db)
	}
}

// moreFillBenchmarks are sub-benchmarks of BenchmarkFill1000 that other
// files add (Go's uuid.UUID, on Go 1.27 and later).
var moreFillBenchmarks []func(b *testing.B, db *gorm.DB)

func benchFill[T any](b *testing.B, db *gorm.DB, reset func(*T)) {
	rows := make([]T, benchBatch)
	b.ReportAllocs()
	for b.Loop() {
		for i := range rows {
			reset(&rows[i])
		}
		if err := db.Create(&rows).Error; err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchBatch, "ns/row")
}

package gormplugin_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"gorm.io/driver/mysql"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

// requireStored checks that each order has a fresh key its hook saw, and
// that the rows read back by key carry the same names.
func requireStored(t *testing.T, db *gorm.DB, orders ...*Order) {
	t.Helper()
	seen := map[types.Snowflake]bool{}
	for _, o := range orders {
		require.NotZero(t, o.ID, "key of %q not filled", o.Name)
		require.False(t, seen[o.ID], "duplicate key %v", o.ID)
		seen[o.ID] = true
		if o.Hooked {
			assert.Equal(t, o.ID, o.SeenID, "BeforeCreate of %q saw another key", o.Name)
		}
		var got Order
		require.NoError(t, db.First(&got, "id = ?", o.ID).Error)
		assert.Equal(t, o.Name, got.Name)
		assert.Equal(t, o.ID, got.ID)
	}
}

func TestCreatePaths(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Order{}, &Event{})
		ctx := context.Background()
		tests := []struct {
			name   string
			create func(t *testing.T) []*Order
		}{
			{"struct pointer", func(t *testing.T) []*Order {
				o := &Order{Name: "one"}
				require.NoError(t, db.Create(o).Error)
				require.True(t, o.Hooked)
				return []*Order{o}
			}},
			{"slice of structs", func(t *testing.T) []*Order {
				s := []Order{{Name: "a"}, {Name: "b"}, {Name: "c"}}
				require.NoError(t, db.Create(&s).Error)
				return []*Order{&s[0], &s[1], &s[2]}
			}},
			{"slice of pointers", func(t *testing.T) []*Order {
				s := []*Order{{Name: "p1"}, {Name: "p2"}}
				require.NoError(t, db.Create(s).Error)
				return s
			}},
			{"array pointer", func(t *testing.T) []*Order {
				a := [2]Order{{Name: "arr1"}, {Name: "arr2"}}
				require.NoError(t, db.Create(&a).Error)
				return []*Order{&a[0], &a[1]}
			}},
			{"CreateInBatches", func(t *testing.T) []*Order {
				s := make([]Order, 5)
				for i := range s {
					s[i].Name = "batch" + string(rune('0'+i))
				}
				require.NoError(t, db.CreateInBatches(&s, 2).Error)
				out := make([]*Order, len(s))
				for i := range s {
					out[i] = &s[i]
				}
				return out
			}},
			{"Save creates", func(t *testing.T) []*Order {
				o := &Order{Name: "saved"}
				require.NoError(t, db.Save(o).Error)
				return []*Order{o}
			}},
			{"FirstOrCreate creates", func(t *testing.T) []*Order {
				o := &Order{}
				require.NoError(t, db.Where(Order{Name: "foc"}).FirstOrCreate(o).Error)
				require.Equal(t, "foc", o.Name)
				return []*Order{o}
			}},
			{"transaction", func(t *testing.T) []*Order {
				o := &Order{Name: "tx"}
				require.NoError(t, db.Transaction(func(tx *gorm.DB) error { return tx.Create(o).Error }))
				return []*Order{o}
			}},
			{"SkipHooks", func(t *testing.T) []*Order {
				o := &Order{Name: "nohooks"}
				require.NoError(t, db.Session(&gorm.Session{SkipHooks: true}).Create(o).Error)
				require.False(t, o.Hooked, "hook ran despite SkipHooks")
				return []*Order{o}
			}},
			{"Unscoped", func(t *testing.T) []*Order {
				o := &Order{Name: "unscoped"}
				require.NoError(t, db.Unscoped().Create(o).Error)
				return []*Order{o}
			}},
			{"generic G Create", func(t *testing.T) []*Order {
				o := &Order{Name: "generic"}
				require.NoError(t, gorm.G[Order](db).Create(ctx, o))
				return []*Order{o}
			}},
			{"generic G CreateInBatches", func(t *testing.T) []*Order {
				s := []Order{{Name: "g1"}, {Name: "g2"}, {Name: "g3"}}
				require.NoError(t, gorm.G[Order](db).CreateInBatches(ctx, &s, 2))
				return []*Order{&s[0], &s[1], &s[2]}
			}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				requireStored(t, db, tt.create(t)...)
			})
		}

		t.Run("set key kept", func(t *testing.T) {
			o := &Order{ID: 424242, Name: "preset"}
			require.NoError(t, db.Create(o).Error)
			assert.Equal(t, types.Snowflake(424242), o.ID)
			requireStored(t, db, o)
			e := &Event{ID: types.MustParseObjectID("0123456789abcdef01234567"), Name: "preset"}
			require.NoError(t, db.Create(e).Error)
			assert.Equal(t, "0123456789abcdef01234567", e.ID.Hex())
		})

		t.Run("ObjectID key", func(t *testing.T) {
			es := []*Event{{Name: "e1"}, {Name: "e2"}}
			require.NoError(t, db.Create(es).Error)
			for _, e := range es {
				require.False(t, e.ID.IsZero())
				assert.Equal(t, e.ID, e.SeenID)
				var got Event
				require.NoError(t, db.First(&got, "id = ?", e.ID).Error)
				assert.Equal(t, e.ID, got.ID)
			}
			assert.NotEqual(t, es[0].ID, es[1].ID)
		})
	})
}

func TestCreateMaps(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Order{}, &Legacy{}, &WithDefault{})
		count := func(t *testing.T, model any, id any) int64 {
			var n int64
			require.NoError(t, db.Model(model).Where("id = ?", id).Count(&n).Error)
			return n
		}
		t.Run("map", func(t *testing.T) {
			m := map[string]any{"name": "m"}
			require.NoError(t, db.Model(&Order{}).Create(m).Error)
			id, ok := m["id"].(types.Snowflake)
			require.True(t, ok, "map id = %#v", m["id"])
			assert.EqualValues(t, 1, count(t, &Order{}, id))
		})
		t.Run("map pointer with zero key by field name", func(t *testing.T) {
			m := map[string]any{"Name": "mp", "ID": types.Snowflake(0)}
			require.NoError(t, db.Model(&Order{}).Create(&m).Error)
			id := m["ID"].(types.Snowflake)
			require.NotZero(t, id)
			_, added := m["id"]
			assert.False(t, added, "key added under a second name")
			assert.EqualValues(t, 1, count(t, &Order{}, id))
		})
		t.Run("map set key kept", func(t *testing.T) {
			m := map[string]any{"name": "ms", "id": types.Snowflake(777)}
			require.NoError(t, db.Model(&Order{}).Create(m).Error)
			assert.Equal(t, types.Snowflake(777), m["id"])
		})
		t.Run("slice of maps", func(t *testing.T) {
			ms := []map[string]any{{"name": "s1"}, {"name": "s2"}}
			require.NoError(t, db.Model(&Order{}).Create(ms).Error)
			assert.NotEqual(t, ms[0]["id"], ms[1]["id"])
			for _, m := range ms {
				assert.EqualValues(t, 1, count(t, &Order{}, m["id"]))
			}
		})
		t.Run("pointer to slice of maps", func(t *testing.T) {
			ms := []map[string]any{{"name": "ps1"}, {"name": "ps2"}, {"name": "ps3"}}
			require.NoError(t, db.Model(&Order{}).Create(&ms).Error)
			require.Len(t, ms, 3)
			for _, m := range ms {
				assert.EqualValues(t, 1, count(t, &Order{}, m["id"]))
			}
		})
		t.Run("plain integer key keeps client key", func(t *testing.T) {
			// Inserts use and keep the client's keys, with no back-fill
			// over them.
			m := map[string]any{"name": "legacy"}
			require.NoError(t, db.Model(&Legacy{}).Create(m).Error)
			id := m["id"].(int64)
			require.Greater(t, id, int64(1<<32), "key overwritten by the database: %d", id)
			assert.EqualValues(t, 1, count(t, &Legacy{}, id))

			ms := []map[string]any{{"name": "l1"}, {"name": "l2"}}
			require.NoError(t, db.Model(&Legacy{}).Create(&ms).Error)
			require.Len(t, ms, 2)
			for _, m := range ms {
				id := m["id"].(int64)
				require.Greater(t, id, int64(1<<32))
				assert.EqualValues(t, 1, count(t, &Legacy{}, id))
			}

			dry := db.Session(&gorm.Session{DryRun: true}).Model(&Legacy{}).Create(map[string]any{"name": "dry"})
			require.NoError(t, dry.Error)
			assert.NotContains(t, strings.ToUpper(dry.Statement.SQL.String()), "RETURNING")

			l := &Legacy{Name: "struct"}
			require.NoError(t, db.Create(l).Error)
			require.Greater(t, l.ID, int64(1<<32))
			assert.EqualValues(t, 1, count(t, &Legacy{}, l.ID))
		})
		t.Run("pointer to slice of maps with RETURNING", func(t *testing.T) {
			ms := []map[string]any{{"name": "r1"}, {"name": "r2"}}
			require.NoError(t, db.Model(&WithDefault{}).Create(&ms).Error)
			require.Len(t, ms, 2, "returned rows appended to the caller's slice")
			for _, m := range ms {
				assert.EqualValues(t, 1, count(t, &WithDefault{}, m["id"]))
			}
			var got []WithDefault
			require.NoError(t, db.Order("id").Find(&got).Error)
			require.Len(t, got, 2)
			assert.Equal(t, 42, got[0].Seq)
		})
	})
}

// TestLastInsertIDBackfill runs MariaDB without RETURNING, as MySQL works:
// GORM writes LastInsertId (plus one per row) into the maps of an
// auto-increment key, over the client's keys; a plain integer key tagged
// autoIncrement:false keeps them.
func TestLastInsertIDBackfill(t *testing.T) {
	d := dialect{Name: "mariadb", Open: func(testing.TB) gorm.Dialector {
		return mysql.New(mysql.Config{DSN: testdb.MySQLDSN(), DisableWithReturning: true})
	}}
	db := openDB(t, d, gormplugin.New(gormplugin.WithNode(2)))
	migrate(t, db, &Legacy{})
	ms := []map[string]any{{"name": "b1"}, {"name": "b2"}, {"name": "b3"}}
	require.NoError(t, db.Model(&Legacy{}).Create(&ms).Error)
	for _, m := range ms {
		var n int64
		require.NoError(t, db.Model(&Legacy{}).Where("id = ? AND name = ?", m["id"], m["name"]).Count(&n).Error)
		assert.EqualValues(t, 1, n, "map %v does not name its row", m)
	}
	l := []Legacy{{Name: "s1"}, {Name: "s2"}}
	require.NoError(t, db.Create(&l).Error)
	for _, r := range l {
		var got Legacy
		require.NoError(t, db.First(&got, r.ID).Error)
		assert.Equal(t, r.Name, got.Name)
	}
}

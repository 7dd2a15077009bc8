package gormplugin_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// Basket is keyed by a types.UUID with no tag: AutoMigrate picks the column
// type and gormplugin.New() fills the key.
type Basket struct {
	ID    types.UUID
	Email string `gorm:"size:64;uniqueIndex"`
	Name  string
	Lines []BasketLine
}

// BasketLine references an Basket through a nullable UUID and is keyed by a
// pointer to a UUID.
type BasketLine struct {
	ID       *types.UUID
	BasketID types.NullUUID
	Item     string `gorm:"size:64"`
}

func uuidDBs(t *testing.T, f func(t *testing.T, db *gorm.DB)) {
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := openDB(t, d, gormplugin.New())
			migrate(t, db, &Basket{}, &BasketLine{})
			f(t, db)
		})
	}
}

func tableOf(t *testing.T, db *gorm.DB, model any) string {
	t.Helper()
	stmt := &gorm.Statement{DB: db}
	require.NoError(t, stmt.Parse(model))
	return stmt.Schema.Table
}

// storedBaskets reads every order's key and email with plain SQL.
func storedBaskets(t *testing.T, db *gorm.DB) map[string]types.UUID {
	t.Helper()
	rows, err := db.Raw("SELECT id, email FROM " + tableOf(t, db, &Basket{})).Rows()
	require.NoError(t, err)
	defer rows.Close()
	got := map[string]types.UUID{}
	for rows.Next() {
		var id types.UUID
		var email string
		require.NoError(t, rows.Scan(&id, &email))
		got[email] = id
	}
	require.NoError(t, rows.Err())
	return got
}

func TestUUIDAutoMigrate(t *testing.T) {
	want := map[string]string{"postgres": "uuid", "mysql": "binary(16)", "sqlite": "blob"}
	uuidDBs(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Basket{}, &BasketLine{}) // a second run finds nothing to change
		typ := want[db.Dialector.Name()]
		c := describeColumn(t, db, tableOf(t, db, &Basket{}), "id")
		assert.Equal(t, typ, c.Type)
		assert.False(t, c.Nullable)
		assert.Empty(t, c.Extra)
		c = describeColumn(t, db, tableOf(t, db, &BasketLine{}), "basket_id")
		assert.Equal(t, typ, c.Type)
		assert.True(t, c.Nullable)
		assert.Equal(t, 1, foreignKeyCount(t, db, tableOf(t, db, &BasketLine{})))
	})
}

func TestUUIDCreatePaths(t *testing.T) {
	uuidDBs(t, func(t *testing.T, db *gorm.DB) {
		ctx := context.Background()
		one := Basket{Email: "one", Lines: []BasketLine{{Item: "a"}, {Item: "b"}}}
		require.NoError(t, db.Create(&one).Error)
		assert.EqualValues(t, 7, one.ID[6]>>4)
		batch := []*Basket{{Email: "b1"}, {Email: "b2"}, {Email: "b3"}}
		require.NoError(t, db.CreateInBatches(batch, 2).Error)
		m := map[string]any{"email": "map"}
		require.NoError(t, db.Model(&Basket{}).Create(m).Error)
		ms := []map[string]any{{"email": "maps1"}, {"email": "maps2"}}
		require.NoError(t, db.Model(&Basket{}).Create(&ms).Error)
		g := Basket{Email: "generic"}
		require.NoError(t, gorm.G[Basket](db).Create(ctx, &g))
		saved := Basket{Email: "save"}
		require.NoError(t, db.Save(&saved).Error)
		var foc Basket
		require.NoError(t, db.Where(Basket{Email: "foc"}).FirstOrCreate(&foc).Error)
		given := Basket{ID: types.NewUUIDv7(), Email: "given"}
		keep := given.ID
		require.NoError(t, db.Create(&given).Error)
		assert.Equal(t, keep, given.ID, "a set key is kept")

		want := map[string]types.UUID{"one": one.ID, "map": m["id"].(types.UUID), "maps1": ms[0]["id"].(types.UUID),
			"maps2": ms[1]["id"].(types.UUID), "generic": g.ID, "save": saved.ID, "foc": foc.ID, "given": keep}
		for _, o := range batch {
			want[o.Email] = o.ID
		}
		for email, id := range want {
			assert.False(t, id.IsZero(), email)
		}
		assert.Equal(t, want, storedBaskets(t, db))

		var lines []BasketLine
		require.NoError(t, db.Order("item").Find(&lines).Error)
		require.Len(t, lines, 2)
		for i, l := range lines {
			require.NotNil(t, l.ID)
			assert.Equal(t, *one.Lines[i].ID, *l.ID)
			assert.Equal(t, types.NullUUID{ID: one.ID, Valid: true}, l.BasketID)
		}
		orphan := BasketLine{Item: "orphan"}
		require.NoError(t, db.Create(&orphan).Error)
		var back BasketLine
		require.NoError(t, db.First(&back, "item = ?", "orphan").Error)
		assert.False(t, back.BasketID.Valid, "an invalid NullUUID is stored as NULL")
		var nulls int64
		require.NoError(t, db.Model(&BasketLine{}).Where("basket_id IS NULL").Count(&nulls).Error)
		assert.EqualValues(t, 1, nulls)

		var loaded Basket
		require.NoError(t, db.Preload("Lines").First(&loaded, one.ID).Error)
		assert.Len(t, loaded.Lines, 2)
	})
}

func TestUUIDInlineKeys(t *testing.T) {
	uuidDBs(t, func(t *testing.T, db *gorm.DB) {
		a, b, c := Basket{Email: "a"}, Basket{Email: "b"}, Basket{Email: "c"}
		require.NoError(t, db.Create([]*Basket{&a, &b, &c}).Error)

		var got Basket
		require.NoError(t, db.First(&got, a.ID).Error)
		assert.Equal(t, "a", got.Email)
		got = Basket{}
		require.NoError(t, db.First(&got, &b.ID).Error)
		assert.Equal(t, "b", got.Email)
		got = Basket{}
		require.NoError(t, db.First(&got, b.ID.String()).Error)
		assert.Equal(t, "b", got.Email)
		got = Basket{}
		require.NoError(t, db.Where(c.ID).First(&got).Error)
		assert.Equal(t, "c", got.Email)
		got = Basket{}
		require.NoError(t, db.First(&got, "id = ?", c.ID).Error)
		assert.Equal(t, "c", got.Email)
		got = Basket{}
		require.NoError(t, db.Where(&Basket{ID: a.ID}).First(&got).Error)
		assert.Equal(t, "a", got.Email)

		var found []Basket
		require.NoError(t, db.Order("email").Find(&found, []types.UUID{a.ID, c.ID}).Error)
		require.Len(t, found, 2)
		assert.Equal(t, "c", found[1].Email)

		var n int64
		require.NoError(t, db.Model(&Basket{}).Where(a.ID).Count(&n).Error)
		assert.EqualValues(t, 1, n)

		err := db.First(&got, types.UUID{}).Error
		assert.ErrorIs(t, err, types.ErrZeroID)
		err = db.Delete(&Basket{}, types.UUID{}).Error
		assert.ErrorIs(t, err, types.ErrZeroID)
		err = db.First(&got, "id = ?", types.UUID{}).Error
		assert.ErrorIs(t, err, types.ErrZeroID)

		require.NoError(t, db.Model(&Basket{}).Where(b.ID).Update("name", "renamed").Error)
		res := db.Delete(&Basket{}, a.ID)
		require.NoError(t, res.Error)
		assert.EqualValues(t, 1, res.RowsAffected)
		stored := storedBaskets(t, db)
		assert.Equal(t, map[string]types.UUID{"b": b.ID, "c": c.ID}, stored)
		got = Basket{}
		require.NoError(t, db.First(&got, b.ID).Error)
		assert.Equal(t, "renamed", got.Name)
		got = Basket{}
		err = db.First(&got, a.ID).Error
		assert.True(t, errors.Is(err, gorm.ErrRecordNotFound), "%v", err)
	})
}

func TestUUIDUpsertKeepsStoredKey(t *testing.T) {
	onEmail := []clause.Column{{Name: "email"}}
	for _, oc := range []clause.OnConflict{
		{Columns: onEmail, UpdateAll: true},
		{Columns: onEmail, DoUpdates: clause.AssignmentColumns([]string{"name"})},
		{Columns: onEmail, DoNothing: true},
	} {
		uuidDBs(t, func(t *testing.T, db *gorm.DB) {
			old := Basket{Email: "a", Name: "old"}
			require.NoError(t, db.Create(&old).Error)
			rows := []Basket{{Email: "a", Name: "new"}, {Email: "b", Name: "new"}}
			require.NoError(t, db.Clauses(oc).Create(&rows).Error)
			stored := storedBaskets(t, db)
			require.Len(t, stored, 2)
			assert.Equal(t, old.ID, stored["a"], "the conflicting row keeps its key")
			if oc.DoNothing {
				assert.True(t, rows[0].ID.IsZero(), "struct of the row the database skipped")
			} else {
				assert.Equal(t, old.ID, rows[0].ID, "struct of the conflicting row")
			}
			assert.Equal(t, stored["b"], rows[1].ID)
			assert.False(t, rows[1].ID.IsZero())
		})
	}
}

// TestUUIDFromDatabase scans UUIDs the database made itself.
func TestUUIDFromDatabase(t *testing.T) {
	uuidDBs(t, func(t *testing.T, db *gorm.DB) {
		var expr string
		switch db.Dialector.Name() {
		case "postgres":
			expr = "gen_random_uuid()"
		case "mysql":
			expr = "UNHEX(REPLACE(UUID(),'-',''))"
		case "sqlite":
			expr = "randomblob(16)"
		}
		table := tableOf(t, db, &Basket{})
		require.NoError(t, db.Exec("INSERT INTO "+table+" (id, email, name) VALUES ("+expr+", 'db', 'x')").Error)
		var o Basket
		require.NoError(t, db.First(&o, "email = ?", "db").Error)
		assert.False(t, o.ID.IsZero())
		var text string
		switch db.Dialector.Name() {
		case "postgres":
			require.NoError(t, db.Raw("SELECT id::text FROM "+table+" WHERE email = 'db'").Row().Scan(&text))
			assert.Equal(t, text, o.ID.String())
			var direct types.UUID
			require.NoError(t, db.Raw("SELECT gen_random_uuid()").Row().Scan(&direct))
			assert.EqualValues(t, 4, direct[6]>>4)
		case "mysql":
			require.NoError(t, db.Raw("SELECT LOWER(HEX(id)) FROM "+table+" WHERE email = 'db'").Row().Scan(&text))
			assert.Equal(t, text, o.ID.String()[:8]+o.ID.String()[9:13]+o.ID.String()[14:18]+o.ID.String()[19:23]+o.ID.String()[24:])
			var fromText types.UUID
			require.NoError(t, db.Raw("SELECT UUID()").Row().Scan(&fromText))
			assert.EqualValues(t, 1, fromText[6]>>4)
		}
		var again Basket
		require.NoError(t, db.First(&again, o.ID).Error)
		assert.Equal(t, "db", again.Email)
	})
}

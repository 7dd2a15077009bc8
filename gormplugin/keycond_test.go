package gormplugin_test

import (
	"context"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// Doc is keyed by an ObjectID; the key-condition tests look rows up by it.
type Doc struct {
	ID   types.ObjectID
	Name string
}

// NullDoc is keyed by a NullObjectID.
type NullDoc struct {
	ID   types.NullObjectID `gorm:"primaryKey"`
	Name string
}

// RawDoc is keyed by a plain []byte tagged as an ObjectID.
type RawDoc struct {
	ID   []byte `gorm:"primaryKey;size:12;not null" idkit:"objectid"`
	Name string
}

// TextDoc is keyed by a plain string tagged as an ObjectID (24 hex digits).
type TextDoc struct {
	ID   string `gorm:"primaryKey;size:24" idkit:"objectid"`
	Name string
}

// SoftDoc is keyed by an ObjectID and deleted softly.
type SoftDoc struct {
	ID        types.ObjectID
	Name      string
	DeletedAt gorm.DeletedAt
}

// names returns the sorted names of the rows of model's table.
func names(t *testing.T, db *gorm.DB, model any) []string {
	t.Helper()
	var out []string
	require.NoError(t, db.Model(model).Order("name").Pluck("name", &out).Error)
	return out
}

func docNames(docs []Doc) []string {
	out := make([]string, 0, len(docs))
	for _, d := range docs {
		out = append(out, d.Name)
	}
	sort.Strings(out)
	return out
}

// seedDocs stores docs a, b and c and returns them in that order.
func seedDocs(t *testing.T, db *gorm.DB) []Doc {
	t.Helper()
	docs := []Doc{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	require.NoError(t, db.Create(&docs).Error)
	return docs
}

// TestKeyConditionsRead runs every inline primary-key form GORM documents
// with an ObjectID key and checks the rows it selects.
func TestKeyConditionsRead(t *testing.T) {
	type read func(db *gorm.DB, d []Doc) (*gorm.DB, []string)
	one := func(f func(db *gorm.DB, d []Doc, out *Doc) *gorm.DB) read {
		return func(db *gorm.DB, d []Doc) (*gorm.DB, []string) {
			var out Doc
			res := f(db, d, &out)
			return res, []string{out.Name}
		}
	}
	many := func(f func(db *gorm.DB, d []Doc, out *[]Doc) *gorm.DB) read {
		return func(db *gorm.DB, d []Doc) (*gorm.DB, []string) {
			var out []Doc
			res := f(db, d, &out)
			return res, docNames(out)
		}
	}
	tests := []struct {
		name string
		run  read
		want []string
	}{
		{"First", one(func(db *gorm.DB, d []Doc, o *Doc) *gorm.DB { return db.First(o, d[1].ID) }), []string{"b"}},
		{"Take", one(func(db *gorm.DB, d []Doc, o *Doc) *gorm.DB { return db.Take(o, d[1].ID) }), []string{"b"}},
		{"Last", one(func(db *gorm.DB, d []Doc, o *Doc) *gorm.DB { return db.Last(o, d[0].ID) }), []string{"a"}},
		{"First pointer", one(func(db *gorm.DB, d []Doc, o *Doc) *gorm.DB { return db.First(o, &d[2].ID) }), []string{"c"}},
		{"First NullObjectID", one(func(db *gorm.DB, d []Doc, o *Doc) *gorm.DB {
			return db.First(o, types.NullObjectID{ID: d[1].ID, Valid: true})
		}), []string{"b"}},
		{"First [12]byte", one(func(db *gorm.DB, d []Doc, o *Doc) *gorm.DB { return db.First(o, [12]byte(d[1].ID)) }), []string{"b"}},
		{"First []byte", one(func(db *gorm.DB, d []Doc, o *Doc) *gorm.DB { return db.First(o, d[1].ID[:]) }), []string{"b"}},
		{"First HexObjectID", one(func(db *gorm.DB, d []Doc, o *Doc) *gorm.DB {
			return db.First(o, sqltypes.HexObjectID(d[1].ID))
		}), []string{"b"}},
		{"Where(id).First", one(func(db *gorm.DB, d []Doc, o *Doc) *gorm.DB { return db.Where(d[2].ID).First(o) }), []string{"c"}},
		{"Where id = ?", one(func(db *gorm.DB, d []Doc, o *Doc) *gorm.DB { return db.Where("id = ?", d[2].ID).First(o) }), []string{"c"}},
		{"Find one", many(func(db *gorm.DB, d []Doc, o *[]Doc) *gorm.DB { return db.Find(o, d[0].ID) }), []string{"a"}},
		{"Find pointer", many(func(db *gorm.DB, d []Doc, o *[]Doc) *gorm.DB { return db.Find(o, &d[0].ID) }), []string{"a"}},
		{"Find slice", many(func(db *gorm.DB, d []Doc, o *[]Doc) *gorm.DB {
			return db.Find(o, []types.ObjectID{d[0].ID, d[2].ID})
		}), []string{"a", "c"}},
		{"Find HexObjectID slice", many(func(db *gorm.DB, d []Doc, o *[]Doc) *gorm.DB {
			return db.Find(o, []sqltypes.HexObjectID{sqltypes.HexObjectID(d[0].ID), sqltypes.HexObjectID(d[1].ID)})
		}), []string{"a", "b"}},
		{"Find slice of one", many(func(db *gorm.DB, d []Doc, o *[]Doc) *gorm.DB {
			return db.Find(o, []types.ObjectID{d[1].ID})
		}), []string{"b"}},
		{"Not(id)", many(func(db *gorm.DB, d []Doc, o *[]Doc) *gorm.DB { return db.Not(d[0].ID).Find(o) }), []string{"b", "c"}},
		{"Or(id)", many(func(db *gorm.DB, d []Doc, o *[]Doc) *gorm.DB { return db.Where(d[0].ID).Or(d[1].ID).Find(o) }), []string{"a", "b"}},
		{"gorm.G Where(id).First", func(db *gorm.DB, d []Doc) (*gorm.DB, []string) {
			doc, err := gorm.G[Doc](db).Where(d[1].ID).First(context.Background())
			return &gorm.DB{Error: err}, []string{doc.Name}
		}, []string{"b"}},
		{"gorm.G Where(id).Delete", func(db *gorm.DB, d []Doc) (*gorm.DB, []string) {
			n, err := gorm.G[Doc](db).Where(d[0].ID).Delete(context.Background())
			if err == nil {
				err = db.Create(&Doc{ID: d[0].ID, Name: d[0].Name}).Error // put it back
			}
			return &gorm.DB{Error: err}, []string{string(rune('0' + n))}
		}, []string{"1"}},
		{"Count", func(db *gorm.DB, d []Doc) (*gorm.DB, []string) {
			var n int64
			res := db.Model(&Doc{}).Where(d[0].ID).Count(&n)
			return res, []string{string(rune('0' + n))}
		}, []string{"1"}},
		{"Pluck", func(db *gorm.DB, d []Doc) (*gorm.DB, []string) {
			var out []string
			res := db.Model(&Doc{}).Where(d[1].ID).Pluck("name", &out)
			return res, out
		}, []string{"b"}},
		{"Row", func(db *gorm.DB, d []Doc) (*gorm.DB, []string) {
			var name string
			row := db.Model(&Doc{}).Where(d[2].ID).Select("name").Row()
			err := row.Scan(&name)
			res := &gorm.DB{Error: err}
			return res, []string{name}
		}, []string{"c"}},
	}
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Doc{})
		docs := seedDocs(t, db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res, got := tt.run(db, docs)
				require.NoError(t, res.Error)
				assert.Equal(t, tt.want, got)
			})
		}
	})
}

// TestKeyConditionsWrite deletes and updates by each inline key form and
// checks which rows were deleted or changed.
func TestKeyConditionsWrite(t *testing.T) {
	tests := []struct {
		name     string
		run      func(db *gorm.DB, d []Doc) *gorm.DB
		affected int64
		want     []string // names left in the table
	}{
		{"Delete", func(db *gorm.DB, d []Doc) *gorm.DB { return db.Delete(&Doc{}, d[1].ID) }, 1, []string{"a", "c"}},
		{"Delete pointer", func(db *gorm.DB, d []Doc) *gorm.DB { return db.Delete(&Doc{}, &d[1].ID) }, 1, []string{"a", "c"}},
		{"Delete NullObjectID", func(db *gorm.DB, d []Doc) *gorm.DB {
			return db.Delete(&Doc{}, types.NullObjectID{ID: d[0].ID, Valid: true})
		}, 1, []string{"b", "c"}},
		{"Delete slice", func(db *gorm.DB, d []Doc) *gorm.DB {
			return db.Delete(&Doc{}, []types.ObjectID{d[0].ID, d[2].ID})
		}, 2, []string{"b"}},
		{"Where(id).Delete", func(db *gorm.DB, d []Doc) *gorm.DB { return db.Where(d[2].ID).Delete(&Doc{}) }, 1, []string{"a", "b"}},
		{"Delete struct", func(db *gorm.DB, d []Doc) *gorm.DB { return db.Delete(&d[0]) }, 1, []string{"b", "c"}},
		{"Update Where(id)", func(db *gorm.DB, d []Doc) *gorm.DB {
			return db.Model(&Doc{}).Where(d[1].ID).Update("name", "x")
		}, 1, []string{"a", "c", "x"}},
		{"Updates Where(id)", func(db *gorm.DB, d []Doc) *gorm.DB {
			return db.Model(&Doc{}).Where(d[0].ID).Updates(map[string]any{"name": "x"})
		}, 1, []string{"b", "c", "x"}},
		{"Update Where id = ?", func(db *gorm.DB, d []Doc) *gorm.DB {
			return db.Model(&Doc{}).Where("id = ?", d[0].ID).Update("name", "x")
		}, 1, []string{"b", "c", "x"}},
		{"Update Model key", func(db *gorm.DB, d []Doc) *gorm.DB {
			return db.Model(&Doc{ID: d[2].ID}).Update("name", "x")
		}, 1, []string{"a", "b", "x"}},
		{"Update slice", func(db *gorm.DB, d []Doc) *gorm.DB {
			return db.Model(&Doc{}).Where([]types.ObjectID{d[0].ID, d[1].ID}).Update("name", "x")
		}, 2, []string{"c", "x", "x"}},
	}
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Doc{})
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				require.NoError(t, db.Where("1 = 1").Delete(&Doc{}).Error)
				docs := seedDocs(t, db)
				res := tt.run(db, docs)
				require.NoError(t, res.Error)
				assert.Equal(t, tt.affected, res.RowsAffected, "rows affected")
				assert.Equal(t, tt.want, names(t, db, &Doc{}))
			})
		}
	})
}

// TestKeyConditionsOtherKeys runs the inline forms on models keyed by a
// NullObjectID, a HexObjectID, a tagged []byte and a Snowflake.
func TestKeyConditionsOtherKeys(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &NullDoc{}, &HexDoc{}, &RawDoc{}, &TextDoc{}, &Order{}, &SoftDoc{})

		t.Run("Joins and Preload", func(t *testing.T) {
			migrate(t, db, &HexKeyed{}, &HexChild{})
			newParent := func() HexKeyed { return HexKeyed{ID: sqltypes.HexObjectID(types.NewObjectID())} }
			children := []HexChild{{HexKeyed: newParent()}, {HexKeyed: newParent()}}
			require.NoError(t, db.Create(&children).Error)
			var got HexChild
			require.NoError(t, db.Joins("HexKeyed").First(&got, children[1].ID).Error)
			assert.Equal(t, children[1].ID, got.ID)
			assert.Equal(t, children[1].HexKeyed.ID, got.HexKeyed.ID)
			got = HexChild{}
			require.NoError(t, db.Preload("HexKeyed").Take(&got, children[0].ID).Error)
			assert.Equal(t, children[0].HexKeyedID, got.HexKeyed.ID)
		})

		t.Run("soft delete", func(t *testing.T) {
			rows := []SoftDoc{{Name: "a"}, {Name: "b"}}
			require.NoError(t, db.Create(&rows).Error)
			res := db.Delete(&SoftDoc{}, rows[0].ID)
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			var got SoftDoc
			assert.ErrorIs(t, db.First(&got, rows[0].ID).Error, gorm.ErrRecordNotFound)
			require.NoError(t, db.Unscoped().First(&got, rows[0].ID).Error)
			assert.True(t, got.DeletedAt.Valid)
			var live SoftDoc
			require.NoError(t, db.First(&live, rows[1].ID).Error)
			assert.Equal(t, "b", live.Name)
			res = db.Unscoped().Delete(&SoftDoc{}, rows[0].ID)
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			assert.Equal(t, []string{"b"}, names(t, db.Unscoped(), &SoftDoc{}))
		})

		t.Run("NullObjectID", func(t *testing.T) {
			rows := []NullDoc{{Name: "a"}, {Name: "b"}, {Name: "c"}}
			require.NoError(t, db.Create(&rows).Error)
			var got NullDoc
			require.NoError(t, db.First(&got, rows[1].ID).Error)
			assert.Equal(t, rows[1], got)
			got = NullDoc{}
			require.NoError(t, db.First(&got, rows[2].ID.ID).Error)
			assert.Equal(t, rows[2], got)
			res := db.Delete(&NullDoc{}, rows[0].ID)
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			res = db.Model(&NullDoc{}).Where(rows[1].ID).Update("name", "x")
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			assert.Equal(t, []string{"c", "x"}, names(t, db, &NullDoc{}))
		})

		t.Run("HexObjectID", func(t *testing.T) {
			rows := []HexDoc{{Name: "a"}, {Name: "b"}, {Name: "c"}}
			require.NoError(t, db.Create(&rows).Error)
			var got HexDoc
			require.NoError(t, db.First(&got, rows[1].ID).Error)
			assert.Equal(t, rows[1], got)
			got = HexDoc{}
			require.NoError(t, db.First(&got, types.ObjectID(rows[2].ID)).Error, "a types.ObjectID key of a hex column")
			assert.Equal(t, rows[2], got)
			var many []HexDoc
			require.NoError(t, db.Find(&many, []sqltypes.HexObjectID{rows[0].ID, rows[2].ID}).Error)
			assert.Len(t, many, 2)
			many = nil
			require.NoError(t, db.Find(&many, []types.ObjectID{types.ObjectID(rows[0].ID), types.ObjectID(rows[1].ID)}).Error)
			assert.Len(t, many, 2, "types.ObjectID keys of a hex column")
			res := db.Delete(&HexDoc{}, rows[0].ID)
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			res = db.Model(&HexDoc{}).Where(types.ObjectID(rows[1].ID)).Update("name", "x")
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			assert.Equal(t, []string{"c", "x"}, names(t, db, &HexDoc{}))
		})

		t.Run("tagged []byte", func(t *testing.T) {
			rows := []RawDoc{{Name: "a"}, {Name: "b"}, {Name: "c"}}
			require.NoError(t, db.Create(&rows).Error)
			var got RawDoc
			require.NoError(t, db.First(&got, rows[1].ID).Error)
			assert.Equal(t, rows[1], got)
			got = RawDoc{}
			require.NoError(t, db.First(&got, [12]byte(rows[2].ID)).Error)
			assert.Equal(t, rows[2], got)
			res := db.Delete(&RawDoc{}, rows[0].ID)
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			res = db.Model(&RawDoc{}).Where(rows[1].ID).Update("name", "x")
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			assert.Equal(t, []string{"c", "x"}, names(t, db, &RawDoc{}))
		})

		t.Run("tagged string", func(t *testing.T) {
			rows := []TextDoc{{Name: "a"}, {Name: "b"}, {Name: "c"}}
			require.NoError(t, db.Create(&rows).Error)
			id, err := types.ParseObjectID(rows[1].ID)
			require.NoError(t, err)
			var got TextDoc
			require.NoError(t, db.First(&got, id).Error)
			assert.Equal(t, rows[1], got)
			res := db.Delete(&TextDoc{}, id)
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			assert.Equal(t, []string{"a", "c"}, names(t, db, &TextDoc{}))
		})

		t.Run("Snowflake", func(t *testing.T) {
			rows := []Order{{Name: "a"}, {Name: "b"}, {Name: "c"}}
			require.NoError(t, db.Create(&rows).Error)
			var got Order
			require.NoError(t, db.First(&got, rows[1].ID).Error)
			assert.Equal(t, "b", got.Name)
			var many []Order
			require.NoError(t, db.Find(&many, []types.Snowflake{rows[0].ID, rows[2].ID}).Error)
			assert.Len(t, many, 2)
			res := db.Delete(&Order{}, rows[0].ID)
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			res = db.Model(&Order{}).Where(rows[1].ID).Update("name", "x")
			require.NoError(t, res.Error)
			assert.EqualValues(t, 1, res.RowsAffected)
			assert.Equal(t, []string{"c", "x"}, names(t, db, &Order{}))
		})
	})
}

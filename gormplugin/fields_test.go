package gormplugin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

func TestAssociations(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Company{}, &Tag{}, &User{}, &Profile{}, &Post{})
		u := &User{
			Name:    "ann",
			Company: Company{Name: "acme"},
			Profile: Profile{Bio: "hi"},
			Posts:   []Post{{Title: "p1"}, {Title: "p2"}},
			Tags:    []Tag{{Name: "t1"}, {Name: "t2"}},
			Manager: &User{Name: "boss", Company: Company{Name: "holding"}},
		}
		require.NoError(t, db.Create(u).Error)

		require.NotZero(t, u.ID)
		require.NotZero(t, u.Company.ID)
		assert.Equal(t, u.Company.ID, u.CompanyID, "belongs-to foreign key")
		require.NotNil(t, u.Manager)
		require.NotZero(t, u.Manager.ID)
		assert.Equal(t, types.NullSnowflake{ID: u.Manager.ID, Valid: true}, u.ManagerID, "self belongs-to foreign key")
		require.False(t, u.Profile.ID.IsZero())
		assert.Equal(t, u.ID, u.Profile.UserID, "has-one foreign key")
		for _, p := range u.Posts {
			require.NotZero(t, p.ID)
			assert.Equal(t, u.ID, p.UserID, "has-many foreign key")
		}
		assert.NotEqual(t, u.Posts[0].ID, u.Posts[1].ID)
		for _, tg := range u.Tags {
			require.False(t, tg.ID.IsZero())
		}

		var got User
		require.NoError(t, db.Preload("Company").Preload("Profile").Preload("Posts").
			Preload("Tags").Preload("Manager").First(&got, u.ID).Error)
		assert.Equal(t, u.Company, got.Company)
		assert.Equal(t, u.Profile, got.Profile)
		assert.ElementsMatch(t, u.Posts, got.Posts)
		assert.ElementsMatch(t, u.Tags, got.Tags)
		require.NotNil(t, got.Manager)
		assert.Equal(t, u.Manager.ID, got.Manager.ID)
	})
}

func TestFieldForms(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		migrate(t, db, &Tagged{}, &Composite{}, &HexDoc{}, &PtrKey{}, &Embedded{}, &EmbeddedPtr{})

		t.Run("tagged plain types", func(t *testing.T) {
			r := &Tagged{}
			require.NoError(t, db.Create(r).Error)
			assert.NotZero(t, r.ID)
			assert.NotZero(t, r.U)
			assert.Len(t, r.Hex, 24)
			assert.Len(t, r.Raw, 12)
			assert.True(t, r.NullS.Valid)
			assert.NotZero(t, r.NullS.ID)
			assert.True(t, r.NullO.Valid)
			assert.False(t, r.Plain.Valid, "untagged non-key filled")
			assert.Zero(t, r.Fixed, "non-creatable field filled")
			_, err := types.ParseObjectID(r.Hex)
			require.NoError(t, err)

			var got Tagged
			require.NoError(t, db.First(&got, r.ID).Error)
			assert.Equal(t, r.U, got.U)
			assert.Equal(t, r.Hex, got.Hex)
			assert.Equal(t, r.Raw, got.Raw)
			assert.Equal(t, r.NullS, got.NullS)
			assert.Equal(t, r.NullO, got.NullO)
			assert.False(t, got.Plain.Valid)
		})
		t.Run("composite key", func(t *testing.T) {
			c := &Composite{Tenant: 7, Code: 9, Name: "c"}
			require.NoError(t, db.Create(c).Error)
			assert.NotZero(t, c.ID, "tagged part not filled")
			assert.EqualValues(t, 9, c.Code, "untagged part of a composite key changed")
			assert.EqualValues(t, 7, c.Tenant)
			var got Composite
			require.NoError(t, db.Where("tenant = ? AND code = ?", 7, 9).First(&got).Error)
			assert.Equal(t, c.ID, got.ID)
		})
		t.Run("hex text key", func(t *testing.T) {
			h := &HexDoc{Name: "h"}
			require.NoError(t, db.Create(h).Error)
			require.False(t, h.ID.IsZero())
			var stored string
			require.NoError(t, db.Model(&HexDoc{}).Select("id").Where("name = ?", "h").Row().Scan(&stored))
			assert.Equal(t, h.ID.String(), stored)
			var got HexDoc
			require.NoError(t, db.First(&got, "id = ?", h.ID).Error)
			assert.Equal(t, h.ID, got.ID)
		})
		t.Run("pointer key", func(t *testing.T) {
			p := &PtrKey{Name: "p"}
			require.NoError(t, db.Create(p).Error)
			require.NotNil(t, p.ID)
			assert.False(t, p.ID.IsZero())
		})
		t.Run("embedded", func(t *testing.T) {
			e := &Embedded{Name: "e"}
			require.NoError(t, db.Create(e).Error)
			assert.NotZero(t, e.ID)
		})
		t.Run("nil embedded pointer", func(t *testing.T) {
			es := []EmbeddedPtr{{Name: "e1"}, {Name: "e2", PtrBase: &PtrBase{}}}
			require.NoError(t, db.Create(&es).Error)
			for _, e := range es {
				require.NotNil(t, e.PtrBase)
				assert.False(t, e.ID.IsZero())
			}
			var got EmbeddedPtr
			require.NoError(t, db.First(&got, "id = ?", es[0].ID).Error)
			assert.Equal(t, "e1", got.Name)
		})
	})
}

func TestOmitSelectSkip(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *gorm.DB) {
		dry := db.Session(&gorm.Session{DryRun: true})
		tests := []struct {
			name   string
			create func(o *Order) *gorm.DB
			filled bool
		}{
			{"plain", func(o *Order) *gorm.DB { return dry.Create(o) }, true},
			{"Omit id", func(o *Order) *gorm.DB { return dry.Omit("id").Create(o) }, false},
			{"Omit ID", func(o *Order) *gorm.DB { return dry.Omit("ID").Create(o) }, false},
			{"Select name", func(o *Order) *gorm.DB { return dry.Select("name").Create(o) }, false},
			{"Select id and name", func(o *Order) *gorm.DB { return dry.Select("id", "name").Create(o) }, true},
			{"Select *", func(o *Order) *gorm.DB { return dry.Select("*").Create(o) }, true},
			{"Omit associations", func(o *Order) *gorm.DB { return dry.Omit("Company").Create(o) }, true},
			{"skip setting", func(o *Order) *gorm.DB { return dry.Set("idkit:skip", true).Create(o) }, false},
			{"skip setting false", func(o *Order) *gorm.DB { return dry.Set("idkit:skip", false).Create(o) }, true},
		}
		t.Run("byte array", func(t *testing.T) {
			a := &ArrayKey{}
			require.ErrorIs(t, dry.Create(a).Error, gormplugin.ErrUnsupportedField)
			assert.Equal(t, [12]byte{}, a.Arr)
		})
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				o := &Order{Name: "x"}
				require.NoError(t, tt.create(o).Error)
				assert.Equal(t, tt.filled, o.ID != 0, "ID = %v", o.ID)
				assert.Equal(t, tt.filled, o.SeenID != 0, "hook saw %v", o.SeenID)
			})
		}
	})
}

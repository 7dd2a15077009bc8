package gormplugin_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/gormplugin"
)

// Ticket is keyed by a google/uuid UUID (stored as text) and has notes.
type Ticket struct {
	ID    uuid.UUID `gorm:"type:varchar(36)"`
	Email string    `gorm:"size:64;uniqueIndex"`
	Name  string
	Notes []Note
}

// Note is keyed by an EventKey (stored as 16 bytes); its TicketID is a
// foreign key GORM sets, never filled.
type Note struct {
	ID       EventKey  `gorm:"size:16"`
	TicketID uuid.UUID `gorm:"type:varchar(36)"`
	Text     string    `gorm:"size:64;uniqueIndex"`
}

// PtrNote is keyed by a pointer to an EventKey.
type PtrNote struct {
	ID   *EventKey `gorm:"size:16"`
	Text string
}

func keyFuncDBs(t *testing.T, f func(t *testing.T, db *gorm.DB)) {
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			db := openDB(t, d, gormplugin.New(gormplugin.WithKeyFunc(uuid.NewV7), gormplugin.WithKeyFunc(NewEventKey)))
			migrate(t, db, &Ticket{}, &Note{}, &PtrNote{})
			f(t, db)
		})
	}
}

func TestKeyFuncCreatePaths(t *testing.T) {
	keyFuncDBs(t, func(t *testing.T, db *gorm.DB) {
		one := Ticket{Email: "one", Notes: []Note{{Text: "n1"}, {Text: "n2"}}}
		require.NoError(t, db.Create(&one).Error)
		require.NotEqual(t, uuid.Nil, one.ID)
		assert.EqualValues(t, 7, one.ID.Version())
		many := []*Ticket{{Email: "b1"}, {Email: "b2"}, {Email: "b3"}}
		require.NoError(t, db.CreateInBatches(many, 2).Error)
		m := map[string]any{"email": "map"}
		require.NoError(t, db.Model(&Ticket{}).Create(m).Error)
		ms := []map[string]any{{"email": "maps1"}, {"email": "maps2"}}
		require.NoError(t, db.Model(&Ticket{}).Create(&ms).Error)
		g := Ticket{Email: "generic"}
		require.NoError(t, gorm.G[Ticket](db).Create(context.Background(), &g))
		p := PtrNote{Text: "ptr"}
		require.NoError(t, db.Create(&p).Error)
		require.NotNil(t, p.ID)

		want := map[string]uuid.UUID{"one": one.ID, "generic": g.ID,
			"map": m["id"].(uuid.UUID), "maps1": ms[0]["id"].(uuid.UUID), "maps2": ms[1]["id"].(uuid.UUID)}
		for _, r := range many {
			want[r.Email] = r.ID
		}
		var stored []Ticket
		require.NoError(t, db.Find(&stored).Error)
		require.Len(t, stored, len(want))
		for _, s := range stored {
			assert.Equal(t, want[s.Email], s.ID, s.Email)
			assert.NotEqual(t, uuid.Nil, s.ID)
		}
		var notes []Note
		require.NoError(t, db.Order("text").Find(&notes).Error)
		require.Len(t, notes, 2)
		for i, n := range notes {
			assert.Equal(t, one.Notes[i].ID, n.ID)
			assert.False(t, n.ID.IsZero())
			assert.Equal(t, one.ID, n.TicketID, "foreign key from the parent")
		}
		var gotPtr PtrNote
		require.NoError(t, db.First(&gotPtr, "text = ?", "ptr").Error)
		assert.Equal(t, *p.ID, *gotPtr.ID)
	})
}

// TestKeyFuncLookups: an EventKey's SQL value is 16 bytes, which GORM would
// take for 16 one-byte keys; the plugin selects the row with that key.
func TestKeyFuncLookups(t *testing.T) {
	keyFuncDBs(t, func(t *testing.T, db *gorm.DB) {
		notes := []Note{{Text: "a"}, {Text: "b"}}
		require.NoError(t, db.Omit("TicketID").Create(&notes).Error)
		var got Note
		require.NoError(t, db.First(&got, notes[1].ID).Error)
		assert.Equal(t, "b", got.Text)
		var n int64
		require.NoError(t, db.Model(&Note{}).Where(notes[0].ID).Count(&n).Error)
		assert.EqualValues(t, 1, n)
		res := db.Delete(&Note{}, notes[0].ID)
		require.NoError(t, res.Error)
		assert.EqualValues(t, 1, res.RowsAffected)
		var left []Note
		require.NoError(t, db.Find(&left).Error)
		require.Len(t, left, 1)
		assert.Equal(t, notes[1].ID, left[0].ID)
	})
}

// TestKeyFuncUpserts: after an upsert each struct holds its stored row's
// key, for keys of any type.
func TestKeyFuncUpserts(t *testing.T) {
	keyFuncDBs(t, func(t *testing.T, db *gorm.DB) {
		old := Ticket{Email: "a", Name: "old"}
		require.NoError(t, db.Create(&old).Error)
		oc := clause.OnConflict{Columns: onEmail, UpdateAll: true}
		single := Ticket{Email: "a", Name: "single"}
		require.NoError(t, db.Omit("Notes").Clauses(oc).Create(&single).Error)
		assert.Equal(t, old.ID, single.ID)
		batch := []Ticket{{Email: "a", Name: "batch"}, {Email: "b"}}
		require.NoError(t, db.Omit("Notes").Clauses(oc).Create(&batch).Error)
		var stored []Ticket
		require.NoError(t, db.Order("email").Find(&stored).Error)
		require.Len(t, stored, 2)
		assert.Equal(t, old.ID, stored[0].ID)
		assert.Equal(t, "batch", stored[0].Name)
		assert.Equal(t, stored[0].ID, batch[0].ID)
		assert.Equal(t, stored[1].ID, batch[1].ID)

		n := Note{Text: "x"}
		require.NoError(t, db.Omit("TicketID").Create(&n).Error)
		again := Note{Text: "x"}
		require.NoError(t, db.Omit("TicketID").Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "text"}}, UpdateAll: true}).Create(&again).Error)
		assert.Equal(t, n.ID, again.ID)
	})
}

// plainKey has no IsZero method: its zero value is the zero key.
type plainKey [4]byte

// sliceKey is neither comparable nor has IsZero.
type sliceKey []byte

func TestKeyFuncOptions(t *testing.T) {
	for name, opt := range map[string]gormplugin.Option{
		"nil func":       gormplugin.WithKeyFunc[uuid.UUID](nil),
		"pointer type":   gormplugin.WithKeyFunc(func() (*uuid.UUID, error) { return nil, nil }),
		"not comparable": gormplugin.WithKeyFunc(func() (sliceKey, error) { return nil, nil }),
	} {
		t.Run(name, func(t *testing.T) {
			assert.ErrorIs(t, sqliteDB(t).Use(gormplugin.New(opt)), generator.ErrInvalidConfig)
		})
	}
	type Row struct {
		ID   plainKey `gorm:"size:4"`
		Name string
	}
	failing := errors.New("no key today")
	for name, tc := range map[string]struct {
		next func() (plainKey, error)
		want []error
	}{
		"error":    {func() (plainKey, error) { return plainKey{}, failing }, []error{gormplugin.ErrGenerate, failing}},
		"zero key": {func() (plainKey, error) { return plainKey{}, nil }, []error{gormplugin.ErrGenerate}},
	} {
		t.Run(name, func(t *testing.T) {
			db := sqliteDB(t)
			require.NoError(t, db.Use(gormplugin.New(gormplugin.WithKeyFunc(tc.next))))
			err := db.Session(&gorm.Session{DryRun: true}).Create(&Row{}).Error
			for _, w := range tc.want {
				assert.ErrorIs(t, err, w)
			}
		})
	}
	t.Run("set key kept", func(t *testing.T) {
		db := sqliteDB(t)
		require.NoError(t, db.Use(gormplugin.New(gormplugin.WithKeyFunc(func() (plainKey, error) { return plainKey{9}, nil }))))
		r := Row{ID: plainKey{1}}
		require.NoError(t, db.Session(&gorm.Session{DryRun: true}).Create(&r).Error)
		assert.Equal(t, plainKey{1}, r.ID)
		r = Row{}
		require.NoError(t, db.Session(&gorm.Session{DryRun: true}).Create(&r).Error)
		assert.Equal(t, plainKey{9}, r.ID)
	})
}

package gormplugin_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/generatortest"
	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

func sqliteDB(t *testing.T) *gorm.DB { return openDB(t, dialects[0], nil) }

// failingSnowflake returns a generator whose every Next fails with
// generator.ErrTimeOverflow: its clock reads a time before the layout's epoch.
func failingSnowflake(t *testing.T) *generator.Snowflake {
	t.Helper()
	g, err := generator.NewSnowflake(1, generator.WithClock(generatortest.NewFakeClock(time.Unix(0, 0))))
	require.NoError(t, err)
	return g
}

func TestUseErrors(t *testing.T) {
	g, err := generator.NewSnowflake(1)
	require.NoError(t, err)
	tests := []struct {
		name string
		opts []gormplugin.Option
		want []error // nil: db.Use succeeds
	}{
		{"no options", nil, nil},
		{"ObjectID generator only", []gormplugin.Option{gormplugin.WithObjectID(generator.DefaultObjectID())}, nil},
		{"WithNode", []gormplugin.Option{gormplugin.WithNode(3)}, nil},
		{"WithSnowflake", []gormplugin.Option{gormplugin.WithSnowflake(g)}, nil},
		{"zero option ignored", []gormplugin.Option{{}, gormplugin.WithNode(3)}, nil},
		{"nil snowflake generator", []gormplugin.Option{gormplugin.WithSnowflake(nil)}, nil},
		{"nil objectid generator", []gormplugin.Option{gormplugin.WithNode(1), gormplugin.WithObjectID(nil)}, nil},
		{"node out of range", []gormplugin.Option{gormplugin.WithNode(1 << 10)},
			[]error{generator.ErrInvalidConfig, generator.ErrNodeOutOfRange}},
		{"negative node", []gormplugin.Option{gormplugin.WithNode(-1)},
			[]error{generator.ErrInvalidConfig, generator.ErrNodeOutOfRange}},
		{"nil key func", []gormplugin.Option{gormplugin.WithKeyFunc[[16]byte](nil)},
			[]error{generator.ErrInvalidConfig}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := gormplugin.New(tt.opts...)
			err := sqliteDB(t).Use(p)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, w := range tt.want {
				assert.ErrorIs(t, err, w)
			}
		})
	}
}

// A nil generator means the default: WithObjectID(nil) fills ObjectIDs from
// the package default, and WithSnowflake(nil) leaves the plugin without a
// Snowflake generator, as if the option were not given.
func TestNilGeneratorMeansDefault(t *testing.T) {
	db := sqliteDB(t)
	require.NoError(t, db.Use(gormplugin.New(gormplugin.WithObjectID(nil), gormplugin.WithSnowflake(nil))))
	dry := db.Session(&gorm.Session{DryRun: true})
	e := &Event{}
	require.NoError(t, dry.Create(e).Error)
	assert.False(t, e.ID.IsZero())
	assert.ErrorIs(t, dry.Create(&Order{}).Error, generator.ErrNoSnowflakeGenerator)

	// A later nil restores the default after an earlier generator.
	db = sqliteDB(t)
	require.NoError(t, db.Use(gormplugin.New(gormplugin.WithNode(1), gormplugin.WithSnowflake(nil))))
	assert.ErrorIs(t, db.Session(&gorm.Session{DryRun: true}).Create(&Order{}).Error, generator.ErrNoSnowflakeGenerator)
}

type badTagType struct {
	ID   types.Snowflake
	Rate float64 `idkit:"snowflake"`
}

type badTagValue struct {
	ID  types.Snowflake
	Ref string `idkit:"uuid"`
}

type nullBytes struct {
	ID  types.Snowflake
	Ref struct {
		ID    []byte
		Valid bool
	} `gorm:"serializer:json" idkit:"objectid"`
}

func TestCreateErrors(t *testing.T) {
	failing := failingSnowflake(t)

	tests := []struct {
		name   string
		plugin *gormplugin.Plugin
		value  any
		want   []error
	}{
		{"tag on unsupported type", gormplugin.New(gormplugin.WithNode(1)), &badTagType{},
			[]error{gormplugin.ErrUnsupportedField}},
		{"unknown tag value", gormplugin.New(gormplugin.WithNode(1)), &badTagValue{},
			[]error{gormplugin.ErrUnsupportedField}},
		{"nullable form of bytes", gormplugin.New(gormplugin.WithNode(1)), &nullBytes{},
			[]error{gormplugin.ErrUnsupportedField}},
		{"snowflake key without generator", gormplugin.New(), &Order{},
			[]error{generator.ErrNoSnowflakeGenerator}},
		{"generator fails", gormplugin.New(gormplugin.WithSnowflake(failing)), &Order{},
			[]error{gormplugin.ErrGenerate, generator.ErrTimeOverflow}},
		{"generator fails in a batch", gormplugin.New(gormplugin.WithSnowflake(failing)), &[]Order{{}, {}},
			[]error{gormplugin.ErrGenerate, generator.ErrTimeOverflow}},
		{"generator fails in a map", gormplugin.New(gormplugin.WithSnowflake(failing)), map[string]any{"name": "m"},
			[]error{gormplugin.ErrGenerate}},
		{"array by value", gormplugin.New(gormplugin.WithNode(1)), [1]Event{},
			[]error{types.ErrNotAddressable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := sqliteDB(t)
			require.NoError(t, db.Use(tt.plugin))
			tx := db.Session(&gorm.Session{DryRun: true})
			if _, isMap := tt.value.(map[string]any); isMap {
				tx = tx.Model(&Order{})
			}
			err := tx.Create(tt.value).Error
			require.Error(t, err)
			for _, w := range tt.want {
				assert.ErrorIs(t, err, w)
			}
		})
	}

	t.Run("plugin with no options fills ObjectIDs", func(t *testing.T) {
		db := sqliteDB(t)
		require.NoError(t, db.Use(gormplugin.New()))
		e := &Event{}
		require.NoError(t, db.Session(&gorm.Session{DryRun: true}).Create(e).Error)
		assert.False(t, e.ID.IsZero())
	})
	t.Run("registered twice", func(t *testing.T) {
		db := sqliteDB(t)
		require.NoError(t, db.Use(gormplugin.New(gormplugin.WithNode(1))))
		assert.ErrorIs(t, db.Use(gormplugin.New(gormplugin.WithNode(1))), gorm.ErrRegistered)
	})
	t.Run("context", func(t *testing.T) {
		db := sqliteDB(t)
		require.NoError(t, db.Use(gormplugin.New(gormplugin.WithNode(1))))
		o := &Order{}
		require.NoError(t, db.WithContext(context.Background()).Session(&gorm.Session{DryRun: true}).Create(o).Error)
		assert.NotZero(t, o.ID)
	})
}

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
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

func sqliteDB(t *testing.T) *gorm.DB { return openDB(t, dialects[0], nil) }

func TestUseErrors(t *testing.T) {
	sf, err := generator.NewSnowflake(1)
	require.NoError(t, err)
	tests := []struct {
		name string
		opts []gormplugin.Option
		want []error // nil: db.Use succeeds
	}{
		{"no options", nil, nil},
		{"ObjectID generator only", []gormplugin.Option{gormplugin.WithObjectID(generator.DefaultObjectID())}, nil},
		{"WithNode", []gormplugin.Option{gormplugin.WithNode(3)}, nil},
		{"WithSnowflake", []gormplugin.Option{gormplugin.WithSnowflake(sf)}, nil},
		{"nil option ignored", []gormplugin.Option{nil, gormplugin.WithNode(3)}, nil},
		{"node out of range", []gormplugin.Option{gormplugin.WithNode(1 << 10)},
			[]error{gormplugin.ErrInvalidConfig, generator.ErrNodeOutOfRange}},
		{"negative node", []gormplugin.Option{gormplugin.WithNode(-1)},
			[]error{gormplugin.ErrInvalidConfig, generator.ErrNodeOutOfRange}},
		{"nil snowflake generator", []gormplugin.Option{gormplugin.WithSnowflake(nil)},
			[]error{gormplugin.ErrInvalidConfig}},
		{"nil objectid generator", []gormplugin.Option{gormplugin.WithNode(1), gormplugin.WithObjectID(nil)},
			[]error{gormplugin.ErrInvalidConfig}},
		{"node source", []gormplugin.Option{gormplugin.WithNodeSource(staticSource(9))}, nil},
		{"failing node source", []gormplugin.Option{gormplugin.WithNodeSource(node.FromEnv("IDKIT_TEST_UNSET_NODE_VAR"))},
			[]error{gormplugin.ErrNoSnowflakeGenerator, node.ErrNoNodeID}},
		{"node source out of range", []gormplugin.Option{gormplugin.WithNodeSource(staticSource(5000))},
			[]error{gormplugin.ErrInvalidConfig, generator.ErrNodeOutOfRange}},
		{"nil node source", []gormplugin.Option{gormplugin.WithNodeSource(nil)},
			[]error{gormplugin.ErrInvalidConfig}},
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

func TestNodeSourceGivesNode(t *testing.T) {
	p := gormplugin.New(gormplugin.WithNodeSource(staticSource(9)))
	require.NoError(t, sqliteDB(t).Use(p))
	require.NotNil(t, p.Snowflake())
	assert.EqualValues(t, 9, p.Snowflake().Node())
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
	// A clock before the layout's epoch makes every Next fail.
	failing, err := generator.NewSnowflake(1, generator.WithClock(generatortest.NewFakeClock(time.Unix(0, 0))))
	require.NoError(t, err)

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
			[]error{gormplugin.ErrNoSnowflakeGenerator}},
		{"generator fails", gormplugin.New(gormplugin.WithSnowflake(failing)), &Order{},
			[]error{gormplugin.ErrGenerate, generator.ErrTimeOverflow}},
		{"generator fails in a batch", gormplugin.New(gormplugin.WithSnowflake(failing)), &[]Order{{}, {}},
			[]error{gormplugin.ErrGenerate, generator.ErrTimeOverflow}},
		{"generator fails in a map", gormplugin.New(gormplugin.WithSnowflake(failing)), map[string]any{"name": "m"},
			[]error{gormplugin.ErrGenerate}},
		{"array by value", gormplugin.New(gormplugin.WithNode(1)), [1]Event{},
			[]error{gormplugin.ErrNotAddressable}},
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

// staticSource is a generator.NodeSource that always yields its value.
type staticSource int64

func (s staticSource) NodeID(context.Context) (int64, error) { return int64(s), nil }

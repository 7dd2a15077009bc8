package gormplugin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/idkit-go/idkit/gormplugin"
	"github.com/idkit-go/idkit/types"
)

// TestMapKeyValues checks which values a map may hold for a key: zero
// forms are replaced, set ones are kept.
func TestMapKeyValues(t *testing.T) {
	db := sqliteDB(t)
	require.NoError(t, db.Use(gormplugin.New(gormplugin.WithNode(1))))
	dry := db.Session(&gorm.Session{DryRun: true})
	zero, set := types.Snowflake(0), types.Snowflake(99)
	tests := []struct {
		name  string
		value any
		kept  bool
	}{
		{"nil", nil, false},
		{"zero Snowflake", zero, false},
		{"nil pointer", (*types.Snowflake)(nil), false},
		{"pointer to zero", &zero, false},
		{"zero int64", int64(0), false},
		{"zero string", "", false},
		{"set Snowflake", set, true},
		{"pointer to set", &set, true},
		{"set int64", int64(99), true},
		{"set string", "99", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := map[string]any{"name": "x", "id": tt.value}
			require.NoError(t, dry.Model(&Order{}).Create(m).Error)
			if tt.kept {
				assert.Equal(t, tt.value, m["id"])
				return
			}
			id, ok := m["id"].(types.Snowflake)
			require.True(t, ok, "id = %#v", m["id"])
			assert.NotZero(t, id)
		})
	}
	t.Run("nil map in a slice", func(t *testing.T) {
		ms := []map[string]any{nil, {"name": "y"}}
		_ = dry.Model(&Order{}).Create(ms) // GORM's own handling of the nil map
		assert.NotNil(t, ms[1]["id"])
	})
	t.Run("nil map pointer", func(t *testing.T) {
		var m map[string]any
		require.NoError(t, dry.Model(&Order{}).Create(&m).Error)
		assert.NotNil(t, m["id"])
	})
	t.Run("nil pointers to maps", func(t *testing.T) {
		assert.NotPanics(t, func() {
			_ = dry.Model(&Order{}).Create((*map[string]any)(nil))
			_ = dry.Model(&Order{}).Create((*[]map[string]any)(nil))
			_ = dry.Create((*Order)(nil))
			_ = dry.Create([]*Order{nil})
			_ = dry.Model(&Order{}).Create(&Event{})
		})
	})
	t.Run("nullable and pointer map values", func(t *testing.T) {
		m := map[string]any{}
		require.NoError(t, dry.Model(&Tagged{}).Create(m).Error)
		ns, ok := m["null_s"].(types.NullSnowflake)
		require.True(t, ok, "null_s = %#v", m["null_s"])
		assert.True(t, ns.Valid)
		m2 := map[string]any{}
		require.NoError(t, dry.Model(&PtrKey{}).Create(m2).Error)
		p, ok := m2["id"].(*types.ObjectID)
		require.True(t, ok, "id = %#v", m2["id"])
		assert.False(t, p.IsZero())
	})
}

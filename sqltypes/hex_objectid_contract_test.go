package sqltypes_test

import (
	"database/sql/driver"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

func TestHexObjectIDZeroValueIsAnError(t *testing.T) {
	v, err := sqltypes.HexObjectID{}.Value()
	assert.ErrorIs(t, err, types.ErrZeroID)
	assert.Contains(t, err.Error(), "gormplugin")
	// The value returned with the error (read only by GORM, which drops
	// the error) is refused by database/sql too.
	_, err = driver.DefaultParameterConverter.ConvertValue(v)
	assert.ErrorIs(t, err, types.ErrZeroID)
	_, err = sqltypes.NullHexObjectID{Valid: true}.Value()
	assert.ErrorIs(t, err, types.ErrZeroID)
	v, err = sqltypes.NullHexObjectID{}.Value()
	assert.NoError(t, err)
	assert.Nil(t, v)
}

func TestNullHexObjectIDJSONNoValue(t *testing.T) {
	id := sqltypes.HexObjectID(types.MustParseObjectID(hexID))
	for _, in := range []string{"null", " null", "null\n", `""`, ` "" `} {
		n := sqltypes.NullHexObjectID{ID: id, Valid: true}
		require.NoError(t, n.UnmarshalJSON([]byte(in)), in)
		assert.Equal(t, sqltypes.NullHexObjectID{}, n, "%q must be NULL", in)
	}
	var doc struct {
		A sqltypes.NullHexObjectID `json:"a"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"a":""}`), &doc))
	assert.False(t, doc.A.Valid)
	for _, in := range []string{"\u00a0null", "nul", `"x"`} {
		n := sqltypes.NullHexObjectID{ID: id, Valid: true}
		assert.ErrorIs(t, n.UnmarshalJSON([]byte(in)), types.ErrInvalidObjectID, in)
		assert.Equal(t, sqltypes.NullHexObjectID{ID: id, Valid: true}, n, "changed on error")
	}
}

func TestHexObjectIDScanStringIsHexOnly(t *testing.T) {
	id := types.MustParseObjectID(hexID)
	var h sqltypes.HexObjectID
	assert.ErrorIs(t, h.Scan(string(id[:])), types.ErrInvalidObjectID)
	assert.True(t, h.IsZero())
	require.NoError(t, h.Scan(id[:]))
	assert.Equal(t, id, types.ObjectID(h))
}

func TestHexObjectIDErrorsAreBounded(t *testing.T) {
	big := strings.Repeat("a", 1<<20)
	var h sqltypes.HexObjectID
	var n sqltypes.NullHexObjectID
	for name, err := range map[string]error{
		"Scan":          h.Scan(big),
		"UnmarshalText": h.UnmarshalText([]byte(big)),
		"UnmarshalJSON": h.UnmarshalJSON([]byte(`"` + big + `"`)),
		"Null JSON":     n.UnmarshalJSON([]byte(`"` + big + `"`)),
	} {
		require.ErrorIs(t, err, types.ErrInvalidObjectID, name)
		assert.Less(t, len(err.Error()), 200, name)
	}
}

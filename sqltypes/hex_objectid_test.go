package sqltypes_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/dialect"
	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

const hexID = "6b0268de83cd1eebc0d73dca"

func TestHexObjectIDValue(t *testing.T) {
	h := sqltypes.HexObjectID(types.MustParseObjectID(hexID))
	v, err := h.Value()
	require.NoError(t, err)
	assert.Equal(t, hexID, v)
	_, err = sqltypes.HexObjectID{}.Value()
	assert.ErrorIs(t, err, types.ErrZeroID)
	assert.Equal(t, hexID, h.String())
	assert.Equal(t, types.MustParseObjectID(hexID), types.ObjectID(h))
	assert.True(t, sqltypes.HexObjectID{}.IsZero())
	assert.False(t, h.IsZero())
}

func TestHexObjectIDScan(t *testing.T) {
	want := types.MustParseObjectID(hexID)
	tests := []struct {
		name    string
		src     any
		wantErr []error
	}{
		{"string", hexID, nil},
		{"upper-case string", strings.ToUpper(hexID), nil},
		{"text as []byte", []byte(hexID), nil},
		{"raw 12 bytes", want[:], nil},
		{"12-character string", string(want[:]), []error{types.ErrInvalidObjectID}},
		{"NULL", nil, []error{types.ErrInvalidObjectID, types.ErrNull}},
		{"short", "abc", []error{types.ErrInvalidObjectID}},
		{"bad hex", strings.Repeat("z", 24), []error{types.ErrInvalidObjectID}},
		{"integer", int64(5), []error{types.ErrInvalidObjectID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h sqltypes.HexObjectID
			err := h.Scan(tt.src)
			if tt.wantErr == nil {
				require.NoError(t, err)
				assert.Equal(t, want, types.ObjectID(h))
				return
			}
			for _, w := range tt.wantErr {
				assert.ErrorIs(t, err, w)
			}
			assert.True(t, h.IsZero(), "destination changed on error")

			var n sqltypes.NullHexObjectID
			if tt.src == nil {
				require.NoError(t, n.Scan(nil))
				assert.False(t, n.Valid)
				return
			}
			n = sqltypes.NullHexObjectID{Valid: true}
			assert.ErrorIs(t, n.Scan(tt.src), types.ErrInvalidObjectID)
			assert.Equal(t, sqltypes.NullHexObjectID{Valid: true}, n, "destination changed on error")
		})
	}
}

func TestHexObjectIDJSON(t *testing.T) {
	type doc struct {
		A sqltypes.HexObjectID     `json:"a"`
		B sqltypes.NullHexObjectID `json:"b"`
		C sqltypes.NullHexObjectID `json:"c"`
	}
	id := sqltypes.HexObjectID(types.MustParseObjectID(hexID))
	in := doc{A: id, B: sqltypes.NullHexObjectID{ID: id, Valid: true}}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":"`+hexID+`","b":"`+hexID+`","c":null}`, string(b))
	var out doc
	require.NoError(t, json.Unmarshal(b, &out))
	assert.Equal(t, in, out)

	var n sqltypes.NullHexObjectID
	err = json.Unmarshal([]byte(`"nothex"`), &n)
	assert.ErrorIs(t, err, types.ErrInvalidObjectID)
	var h sqltypes.HexObjectID
	assert.NoError(t, h.UnmarshalText([]byte(hexID)))
	assert.Equal(t, id, h)
	assert.True(t, errors.Is(h.UnmarshalText([]byte("x")), types.ErrInvalidObjectID))
}

func TestColumnTypes(t *testing.T) {
	tests := []struct {
		dialect       dialect.Dialect
		objectID, hex string
		uuid          string
	}{
		{dialect.Postgres, "bytea", "char(24)", "uuid"},
		{dialect.MySQL, "binary(12)", "char(24)", "binary(16)"},
		{dialect.SQLite, "blob", "text", "blob"},
		{dialect.SQLServer, "binary(12)", "char(24)", "binary(16)"},
		{"oracle", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.dialect), func(t *testing.T) {
			assert.Equal(t, tt.objectID, sqltypes.ObjectIDColumnType(tt.dialect))
			assert.Equal(t, tt.hex, sqltypes.HexObjectIDColumnType(tt.dialect))
			assert.Equal(t, tt.uuid, sqltypes.UUIDColumnType(tt.dialect))
		})
	}
}

// FuzzHexObjectIDScan checks that Scan either fails, leaving the value
// unchanged, or reads an ID whose Value scans back to the same ID.
func FuzzHexObjectIDScan(f *testing.F) {
	f.Add(hexID, false)
	f.Add(strings.ToUpper(hexID), true)
	f.Add("0123456789ab", true)
	f.Add("", false)
	f.Add(strings.Repeat("0", 24), false)
	f.Fuzz(func(t *testing.T, s string, asBytes bool) {
		var src any = s
		if asBytes {
			src = []byte(s)
		}
		var h sqltypes.HexObjectID
		if err := h.Scan(src); err != nil {
			if !errors.Is(err, types.ErrInvalidObjectID) {
				t.Fatalf("error %v does not wrap ErrInvalidObjectID", err)
			}
			if !h.IsZero() {
				t.Fatalf("destination changed on error: %v", h)
			}
			return
		}
		v, err := h.Value()
		if h.IsZero() {
			if !errors.Is(err, types.ErrZeroID) {
				t.Fatalf("Value of the nil ObjectID: %v, want ErrZeroID", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(v.(string)) != 24 {
			t.Fatalf("Value %q is not 24 characters", v)
		}
		var back sqltypes.HexObjectID
		if err := back.Scan(v); err != nil || back != h {
			t.Fatalf("round trip: %v, %v != %v", err, back, h)
		}
	})
}

package types_test

import (
	"database/sql/driver"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/idkit-go/idkit/types"
)

func TestObjectIDValue(t *testing.T) {
	id := types.MustParseObjectID(seedHex)
	v, err := id.Value()
	if b, ok := v.([]byte); err != nil || !ok || string(b) != string(id[:]) {
		t.Fatalf("Value = %#v, %v", v, err)
	}
	if !driver.IsValue(v) {
		t.Fatalf("Value %T is not a driver.Value", v)
	}
}

func TestObjectIDScan(t *testing.T) {
	id := types.MustParseObjectID(seedHex)
	tests := []struct {
		name     string
		src      any
		want     types.ObjectID
		wantNull bool
		wantErr  bool
	}{
		{"raw bytes", id[:], id, false, false},
		{"12-character string (text, never raw)", string(id[:]), types.ObjectID{}, false, true},
		{"12 hex digits", seedHex[:12], types.ObjectID{}, false, true},
		{"hex bytes (postgres text as []byte)", []byte(seedHex), id, false, false},
		{"hex string", seedHex, id, false, false},
		{"upper hex", "632C6D93D65F74BAEB22A2C9", id, false, false},
		{"nil", nil, types.ObjectID{}, true, true},
		{"short bytes", []byte{1, 2, 3}, types.ObjectID{}, false, true},
		{"empty bytes", []byte{}, types.ObjectID{}, false, true},
		{"empty string", "", types.ObjectID{}, false, true},
		{"13 bytes", make([]byte, 13), types.ObjectID{}, false, true},
		{"24 bytes not hex", make([]byte, 24), types.ObjectID{}, false, true},
		{"zero raw bytes", make([]byte, 12), types.ObjectID{}, false, false},
		{"23 hex", seedHex[:23], types.ObjectID{}, false, true},
		{"bad hex", "g32c6d93d65f74baeb22a2c9", types.ObjectID{}, false, true},
		{"int64", int64(5), types.ObjectID{}, false, true},
		{"time", time.Now(), types.ObjectID{}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := types.MustParseObjectID("4df2dcec2cdcd20936a8b817")
			before := got
			err := got.Scan(tt.src)
			if tt.wantErr {
				if !errors.Is(err, types.ErrInvalidObjectID) || got != before {
					t.Fatalf("got %v, %v; want unchanged and ErrInvalidObjectID", got, err)
				}
				if errors.Is(err, types.ErrNull) != tt.wantNull {
					t.Fatalf("errors.Is(err, ErrNull) = %v", !tt.wantNull)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestSnowflakeValueScan(t *testing.T) {
	v, err := types.Snowflake(42).Value()
	if v != int64(42) || err != nil {
		t.Fatalf("Value = %#v, %v", v, err)
	}
	if !driver.IsValue(v) {
		t.Fatalf("Value %T is not a driver.Value", v)
	}
	tests := []struct {
		name    string
		src     any
		want    types.Snowflake
		wantErr bool
	}{
		{"int64", int64(1541815603606036480), 1541815603606036480, false},
		{"int32", int32(7), 7, false},
		{"int", 8, 8, false},
		{"uint64", uint64(9), 9, false},
		{"uint32", uint32(10), 10, false},
		{"bytes", []byte("1541815603606036480"), 1541815603606036480, false},
		{"string", "11", 11, false},
		{"max", int64(math.MaxInt64), math.MaxInt64, false},
		{"negative int64", int64(-1), 0, true},
		{"negative int32", int32(-1), 0, true},
		{"negative int", -1, 0, true},
		{"uint64 overflow", uint64(math.MaxInt64) + 1, 0, true},
		{"bad bytes", []byte("1.0"), 0, true},
		{"bad string", "x", 0, true},
		{"nil", nil, 0, true},
		{"zero", int64(0), 0, false},
		{"zero text", "0", 0, false},
		{"leading zeros", "007", 7, false},
		{"signed text", "+5", 0, true},
		{"negative text", "-5", 0, true},
		{"empty text", "", 0, true},
		{"float", 1.0, 0, true},
		{"bool", true, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := types.Snowflake(99)
			err := got.Scan(tt.src)
			if tt.wantErr {
				if !errors.Is(err, types.ErrInvalidSnowflake) || got != 99 {
					t.Fatalf("got %d, %v; want unchanged and ErrInvalidSnowflake", got, err)
				}
				if (tt.src == nil) != errors.Is(err, types.ErrNull) {
					t.Fatalf("ErrNull mismatch: %v", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func TestNullSQL(t *testing.T) {
	var n types.NullObjectID
	if v, err := n.Value(); v != nil || err != nil {
		t.Fatalf("invalid Value = %#v, %v", v, err)
	}
	id := types.MustParseObjectID(seedHex)
	if err := n.Scan(id[:]); err != nil || !n.Valid || n.ID != id {
		t.Fatalf("Scan = %+v, %v", n, err)
	}
	if v, _ := n.Value(); string(v.([]byte)) != string(id[:]) {
		t.Fatalf("Value = %#v", v)
	}
	if err := n.Scan(nil); err != nil || n.Valid || !n.ID.IsZero() {
		t.Fatalf("Scan(nil) = %+v, %v", n, err)
	}
	n = types.NullObjectID{ID: id, Valid: true}
	if err := n.Scan(int64(3)); !errors.Is(err, types.ErrInvalidObjectID) || n != (types.NullObjectID{ID: id, Valid: true}) {
		t.Fatalf("Scan(bad) = %+v, %v", n, err)
	}

	var s types.NullSnowflake
	if v, err := s.Value(); v != nil || err != nil {
		t.Fatalf("invalid Value = %#v, %v", v, err)
	}
	if err := s.Scan(int64(5)); err != nil || !s.Valid || s.ID != 5 {
		t.Fatalf("Scan = %+v, %v", s, err)
	}
	if v, _ := s.Value(); v != int64(5) {
		t.Fatalf("Value = %#v", v)
	}
	if err := s.Scan(nil); err != nil || s.Valid {
		t.Fatalf("Scan(nil) = %+v, %v", s, err)
	}
	s = types.NullSnowflake{ID: 5, Valid: true}
	if err := s.Scan("x"); !errors.Is(err, types.ErrInvalidSnowflake) || s != (types.NullSnowflake{ID: 5, Valid: true}) {
		t.Fatalf("Scan(bad) = %+v, %v", s, err)
	}
	if !(types.NullSnowflake{}).IsZero() || s.IsZero() {
		t.Fatal("IsZero wrong")
	}
}

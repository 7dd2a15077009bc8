package types_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/types"
)

// The Spanner client passes a Decoder a column value in its wire form:
// INT64 as decimal text, BYTES as standard base64, STRING as is, NULL as a
// nil *string. These tests give the methods those forms; tests/spanner
// runs them through the client on the Spanner emulator.

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

type spannerCodec interface {
	EncodeSpanner() (any, error)
	DecodeSpanner(any) error
}

func TestSpannerEncode(t *testing.T) {
	oid := types.MustParseObjectID(seedHex)
	u := types.MustParseUUID("0190a3c2-5b7e-7def-8a12-3456789abcde")
	for _, tc := range []struct {
		name string
		v    interface{ EncodeSpanner() (any, error) }
		want any
		err  error
	}{
		{"ObjectID", oid, oid[:], nil},
		{"zero ObjectID", types.ObjectID{}, nil, types.ErrZeroID},
		{"Snowflake", types.Snowflake(42), int64(42), nil},
		{"zero Snowflake", types.Snowflake(0), nil, types.ErrZeroID},
		{"negative Snowflake", types.Snowflake(-1), nil, types.ErrInvalidSnowflake},
		{"UUID", u, u[:], nil},
		{"zero UUID", types.UUID{}, nil, types.ErrZeroID},
		{"NullObjectID", types.NullObjectID{ID: oid, Valid: true}, oid[:], nil},
		{"NULL NullObjectID", types.NullObjectID{ID: oid}, []byte(nil), nil},
		{"valid zero NullObjectID", types.NullObjectID{Valid: true}, nil, types.ErrZeroID},
		{"NullSnowflake", types.NullSnowflake{ID: 42, Valid: true}, int64(42), nil},
		{"NULL NullSnowflake", types.NullSnowflake{ID: 42}, (*int64)(nil), nil},
		{"NullUUID", types.NullUUID{ID: u, Valid: true}, u[:], nil},
		{"NULL NullUUID", types.NullUUID{ID: u}, []byte(nil), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.v.EncodeSpanner()
			if tc.err != nil {
				if !errors.Is(err, tc.err) || got != nil {
					t.Fatalf("EncodeSpanner() = %#v, %v; want nil, an error wrapping %v", got, err, tc.err)
				}
				return
			}
			if err != nil || !sameSpannerValue(got, tc.want) {
				t.Fatalf("EncodeSpanner() = %#v (%T), %v; want %#v (%T)", got, got, err, tc.want, tc.want)
			}
		})
	}
}

// sameSpannerValue compares as the client sees values: by type, and for
// []byte by content and nil-ness (nil is NULL).
func sameSpannerValue(a, b any) bool {
	switch x := a.(type) {
	case []byte:
		y, ok := b.([]byte)
		return ok && (x == nil) == (y == nil) && string(x) == string(y)
	case *int64:
		y, ok := b.(*int64)
		return ok && x == nil && y == nil
	}
	return a == b
}

func TestSpannerDecode(t *testing.T) {
	oid := types.MustParseObjectID(seedHex)
	u := types.MustParseUUID("0190a3c2-5b7e-7def-8a12-3456789abcde")
	null := (*string)(nil)
	for _, tc := range []struct {
		name string
		dst  spannerCodec
		src  any
		want any   // the decoded value
		err  error // the sentinel, or nil
		null bool  // the error also wraps ErrNull
	}{
		{"ObjectID BYTES", new(types.ObjectID), b64(oid[:]), oid, nil, false},
		{"ObjectID STRING hex", new(types.ObjectID), strings.ToUpper(seedHex), oid, nil, false},
		{"ObjectID BYTES of 11", new(types.ObjectID), b64(make([]byte, 11)), nil, types.ErrInvalidObjectID, false},
		{"ObjectID BYTES of 13", new(types.ObjectID), b64(make([]byte, 13)), nil, types.ErrInvalidObjectID, false},
		{"ObjectID bad base64", new(types.ObjectID), "!!!!!!!!!!!!!!!!", nil, types.ErrInvalidObjectID, false},
		{"ObjectID bad hex", new(types.ObjectID), strings.Repeat("g", 24), nil, types.ErrInvalidObjectID, false},
		{"ObjectID NULL", new(types.ObjectID), null, nil, types.ErrInvalidObjectID, true},
		{"ObjectID nil", new(types.ObjectID), nil, nil, types.ErrInvalidObjectID, true},
		{"ObjectID FLOAT64", new(types.ObjectID), 1.5, nil, types.ErrInvalidObjectID, false},
		{"ObjectID []byte", new(types.ObjectID), oid[:], nil, types.ErrInvalidObjectID, false},
		{"Snowflake INT64", new(types.Snowflake), "9223372036854775807", types.Snowflake(1<<63 - 1), nil, false},
		{"Snowflake 0", new(types.Snowflake), "0", types.Snowflake(0), nil, false},
		{"Snowflake negative", new(types.Snowflake), "-1", nil, types.ErrInvalidSnowflake, false},
		{"Snowflake overflow", new(types.Snowflake), "9223372036854775808", nil, types.ErrInvalidSnowflake, false},
		{"Snowflake empty", new(types.Snowflake), "", nil, types.ErrInvalidSnowflake, false},
		{"Snowflake FLOAT64", new(types.Snowflake), 42.0, nil, types.ErrInvalidSnowflake, false},
		{"Snowflake NULL", new(types.Snowflake), null, nil, types.ErrInvalidSnowflake, true},
		{"UUID BYTES", new(types.UUID), b64(u[:]), u, nil, false},
		{"UUID STRING", new(types.UUID), u.String(), u, nil, false},
		{"UUID 32 hex", new(types.UUID), strings.ReplaceAll(u.String(), "-", ""), u, nil, false},
		{"UUID BYTES of 17", new(types.UUID), b64(make([]byte, 17)), nil, types.ErrInvalidUUID, false},
		{"UUID BYTES of 18", new(types.UUID), b64(make([]byte, 18)), nil, types.ErrInvalidUUID, false},
		{"UUID non-zero padding bits", new(types.UUID), "AAAAAAAAAAAAAAAAAAAAAB==", nil, types.ErrInvalidUUID, false},
		{"UUID NULL", new(types.UUID), null, nil, types.ErrInvalidUUID, true},
		{"UUID bool", new(types.UUID), true, nil, types.ErrInvalidUUID, false},
		{"NullObjectID BYTES", new(types.NullObjectID), b64(oid[:]), types.NullObjectID{ID: oid, Valid: true}, nil, false},
		{"NullObjectID NULL", &types.NullObjectID{ID: oid, Valid: true}, null, types.NullObjectID{}, nil, false},
		{"NullObjectID nil", &types.NullObjectID{ID: oid, Valid: true}, nil, types.NullObjectID{}, nil, false},
		{"NullObjectID bad", new(types.NullObjectID), "zz", nil, types.ErrInvalidObjectID, false},
		{"NullSnowflake INT64", new(types.NullSnowflake), "42", types.NullSnowflake{ID: 42, Valid: true}, nil, false},
		{"NullSnowflake NULL", &types.NullSnowflake{ID: 42, Valid: true}, null, types.NullSnowflake{}, nil, false},
		{"NullSnowflake FLOAT64 NULL", &types.NullSnowflake{ID: 42, Valid: true}, (*float64)(nil), types.NullSnowflake{}, nil, false},
		{"NullSnowflake bad", new(types.NullSnowflake), "x", nil, types.ErrInvalidSnowflake, false},
		{"NullUUID BYTES", new(types.NullUUID), b64(u[:]), types.NullUUID{ID: u, Valid: true}, nil, false},
		{"NullUUID NULL", &types.NullUUID{ID: u, Valid: true}, null, types.NullUUID{}, nil, false},
		{"NullUUID bad", new(types.NullUUID), "x", nil, types.ErrInvalidUUID, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := deref(tc.dst)
			err := tc.dst.DecodeSpanner(tc.src)
			if tc.err != nil {
				if !errors.Is(err, tc.err) || errors.Is(err, types.ErrNull) != tc.null {
					t.Fatalf("DecodeSpanner(%#v) = %v; want an error wrapping %v (and ErrNull: %t)", tc.src, err, tc.err, tc.null)
				}
				if deref(tc.dst) != before {
					t.Fatalf("DecodeSpanner(%#v) changed the destination on error", tc.src)
				}
				return
			}
			if err != nil || deref(tc.dst) != tc.want {
				t.Fatalf("DecodeSpanner(%#v) = %v, %v; want %v", tc.src, deref(tc.dst), err, tc.want)
			}
		})
	}
}

// deref returns the value dst points to, as an any that compares by value.
func deref(dst spannerCodec) any {
	switch p := dst.(type) {
	case *types.ObjectID:
		return *p
	case *types.Snowflake:
		return *p
	case *types.UUID:
		return *p
	case *types.NullObjectID:
		return *p
	case *types.NullSnowflake:
		return *p
	case *types.NullUUID:
		return *p
	}
	panic("unknown type")
}

// FuzzDecodeSpanner gives each type's DecodeSpanner an arbitrary string,
// and a FLOAT64 and a BOOL value (the client's other wire forms): it never
// panics; an error wraps the type's sentinel and leaves the destination
// unchanged; a number or bool is always an error; a decoded ID encodes to
// a value that decodes to the same ID, and a BYTES input (base64 of the
// ID's length) is exactly what the ID encodes to.
func FuzzDecodeSpanner(f *testing.F) {
	oid := types.MustParseObjectID(seedHex)
	u := types.MustParseUUID("0190a3c2-5b7e-7def-8a12-3456789abcde")
	for _, s := range []string{b64(oid[:]), seedHex, b64(u[:]), u.String(), "42", "-1", "", "0",
		"9223372036854775808", b64(make([]byte, 11)), "AAAAAAAAAAAAAAAAAAAAAB==", strings.Repeat("g", 24)} {
		f.Add(s, 42.0, true)
	}
	f.Fuzz(func(t *testing.T, s string, num float64, flag bool) {
		for _, tc := range []struct {
			dst      spannerCodec
			sentinel error
			size     int // of the ID's raw bytes, 0 for a Snowflake
		}{
			{&types.ObjectID{1}, types.ErrInvalidObjectID, 12},
			{ptrTo(types.Snowflake(7)), types.ErrInvalidSnowflake, 0},
			{&types.UUID{1}, types.ErrInvalidUUID, 16},
			{&types.NullObjectID{ID: types.ObjectID{1}}, types.ErrInvalidObjectID, 12},
			{&types.NullSnowflake{ID: 7}, types.ErrInvalidSnowflake, 0},
			{&types.NullUUID{ID: types.UUID{1}}, types.ErrInvalidUUID, 16},
		} {
			before := deref(tc.dst)
			for _, v := range []any{num, flag} {
				if err := tc.dst.DecodeSpanner(v); !errors.Is(err, tc.sentinel) || deref(tc.dst) != before {
					t.Fatalf("%T.DecodeSpanner(%v) = %v, destination %v (was %v)", tc.dst, v, err, deref(tc.dst), before)
				}
			}
			if err := tc.dst.DecodeSpanner(s); err != nil {
				if !errors.Is(err, tc.sentinel) || deref(tc.dst) != before {
					t.Fatalf("%T.DecodeSpanner(%q) = %v, destination %v (was %v)", tc.dst, s, err, deref(tc.dst), before)
				}
				continue
			}
			got := deref(tc.dst)
			enc, err := tc.dst.EncodeSpanner()
			if errors.Is(err, types.ErrZeroID) {
				continue // a zero ID decodes, and is never written
			}
			if err != nil {
				t.Fatalf("%T.DecodeSpanner(%q) = %v, which does not encode: %v", tc.dst, s, got, err)
			}
			var wire string
			switch v := enc.(type) {
			case []byte:
				wire = b64(v)
				if len(s) == base64.StdEncoding.EncodedLen(tc.size) && wire != s {
					t.Fatalf("%T.DecodeSpanner(%q) encodes to BYTES %q", tc.dst, s, wire)
				}
			case int64:
				wire = s // decimal text decodes to the int64 and nothing else
			default:
				t.Fatalf("%T encodes to %T", tc.dst, enc)
			}
			if err := tc.dst.DecodeSpanner(wire); err != nil || deref(tc.dst) != got {
				t.Fatalf("%T: %q decodes to %v, its encoding %q to %v, %v", tc.dst, s, got, wire, deref(tc.dst), err)
			}
		}
	})
}

func ptrTo[T any](v T) *T { return &v }

package pgxtypes_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idkit-go/idkit/pgxtypes"
	"github.com/idkit-go/idkit/types"
)

// FuzzRegisterMatchesValueScan checks that the codecs Register installs give
// what the types' Value and Scan give through pgx's default map: the same
// bytes written for any ID (zero and negative included), the same value or
// the same error class read back from any column bytes (NULL included), and
// a round trip for every valid ID.
func FuzzRegisterMatchesValueScan(f *testing.F) {
	f.Add([]byte("0123456789ab"), false)
	f.Add([]byte{}, false)
	f.Add([]byte(nil), true)
	f.Add(make([]byte, 12), false)
	f.Add([]byte("6b0418289c1e4991258bf81b"), false)
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1}, false)
	f.Add([]byte{0x80, 0, 0, 0, 0, 0, 0, 1}, false)
	plain, reg := pgtype.NewMap(), pgtype.NewMap()
	pgxtypes.Register(reg)
	f.Fuzz(func(t *testing.T, src []byte, null bool) {
		if null {
			src = nil
		} else if src == nil {
			src = []byte{}
		}
		// Scan: ObjectID and its Null form from bytea, Snowflake and its
		// Null form from int8 (only 8-byte values are valid int8 binary).
		for _, c := range []struct {
			oid  uint32
			a, b func() any
		}{
			{pgtype.ByteaOID, func() any { return new(types.ObjectID) }, func() any { return new(types.ObjectID) }},
			{pgtype.ByteaOID, func() any { return new(types.NullObjectID) }, func() any { return new(types.NullObjectID) }},
			{pgtype.Int8OID, func() any { return new(types.Snowflake) }, func() any { return new(types.Snowflake) }},
			{pgtype.Int8OID, func() any { return new(types.NullSnowflake) }, func() any { return new(types.NullSnowflake) }},
		} {
			if c.oid == pgtype.Int8OID && src != nil && len(src) != 8 {
				continue // pgx's own int8 decoder rejects these before Scan
			}
			want, got := c.a(), c.b()
			errWant := plain.Scan(c.oid, pgtype.BinaryFormatCode, src, want)
			errGot := reg.Scan(c.oid, pgtype.BinaryFormatCode, src, got)
			if (errWant == nil) != (errGot == nil) ||
				errors.Is(errWant, types.ErrNull) != errors.Is(errGot, types.ErrNull) ||
				errors.Is(errWant, types.ErrInvalidObjectID) != errors.Is(errGot, types.ErrInvalidObjectID) ||
				errors.Is(errWant, types.ErrInvalidSnowflake) != errors.Is(errGot, types.ErrInvalidSnowflake) {
				t.Fatalf("scan %x into %T: Scan gives %v, Register gives %v", src, want, errWant, errGot)
			}
			if errWant == nil && !equalDeref(want, got) {
				t.Fatalf("scan %x into %T: Scan gives %v, Register gives %v", src, want, want, got)
			}
		}

		// Encode: an ObjectID from the first 12 bytes, a Snowflake from the
		// first 8, and their Null forms, valid or not.
		var id types.ObjectID
		copy(id[:], src)
		var sid types.Snowflake
		for _, b := range src[:min(8, len(src))] {
			sid = sid<<8 | types.Snowflake(b)
		}
		for _, c := range []struct {
			oid uint32
			v   any
		}{
			{pgtype.ByteaOID, id},
			{pgtype.ByteaOID, types.NullObjectID{ID: id, Valid: !null}},
			{pgtype.Int8OID, sid},
			{pgtype.Int8OID, types.NullSnowflake{ID: sid, Valid: !null}},
		} {
			want, errWant := plain.Encode(c.oid, pgtype.BinaryFormatCode, c.v, nil)
			got, errGot := reg.Encode(c.oid, pgtype.BinaryFormatCode, c.v, nil)
			if (errWant == nil) != (errGot == nil) || !bytes.Equal(want, got) || (want == nil) != (got == nil) {
				t.Fatalf("encode %#v: Value gives %x, %v; Register gives %x, %v", c.v, want, errWant, got, errGot)
			}
			if errGot != nil || got == nil {
				continue
			}
			// Round trip through the registered codecs.
			switch v := c.v.(type) {
			case types.ObjectID:
				var back types.ObjectID
				if err := reg.Scan(c.oid, pgtype.BinaryFormatCode, got, &back); err != nil || back != v {
					t.Fatalf("round trip %v: %v, %v", v, back, err)
				}
			case types.Snowflake:
				var back types.Snowflake
				err := reg.Scan(c.oid, pgtype.BinaryFormatCode, got, &back)
				if v >= 0 && (err != nil || back != v) || v < 0 && !errors.Is(err, types.ErrInvalidSnowflake) {
					t.Fatalf("round trip %v: %v, %v", v, back, err)
				}
			}
		}
	})
}

func equalDeref(a, b any) bool {
	switch x := a.(type) {
	case *types.ObjectID:
		return *x == *b.(*types.ObjectID)
	case *types.NullObjectID:
		return *x == *b.(*types.NullObjectID)
	case *types.Snowflake:
		return *x == *b.(*types.Snowflake)
	case *types.NullSnowflake:
		return *x == *b.(*types.NullSnowflake)
	}
	return false
}

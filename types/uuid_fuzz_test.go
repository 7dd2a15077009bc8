package types_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/types"
)

// The UUID fuzz tests check as the others do: accepted input round-trips
// through String, rejected input wraps ErrInvalidUUID and leaves the
// destination unchanged.

func addUUIDSeeds(f *testing.F) {
	for _, s := range []string{uuidText, strings.ToUpper(uuidText), uuidHex32, `"` + uuidText + `"`, "", "null", `""`,
		"00000000-0000-0000-0000-000000000000", "0190a3c2-5b7e-7def-8a12_3456789abcde", string(uuidRaw), "zz"} {
		f.Add([]byte(s))
	}
}

func checkUUID(t *testing.T, what string, in []byte, got types.UUID, err error) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, types.ErrInvalidUUID) {
			t.Fatalf("%s(%q): error %v does not wrap ErrInvalidUUID", what, in, err)
		}
		if got != uuidSentinel {
			t.Fatalf("%s(%q): value changed on error", what, in)
		}
		return
	}
	if back, perr := types.ParseUUID(got.String()); perr != nil || back != got {
		t.Fatalf("%s(%q) = %v does not round trip through String", what, in, got)
	}
}

func FuzzParseUUID(f *testing.F) {
	addUUIDSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		id, err := types.ParseUUID(string(in))
		if err != nil {
			if !errors.Is(err, types.ErrInvalidUUID) || !id.IsZero() {
				t.Fatalf("ParseUUID(%q) = %v, %v", in, id, err)
			}
			return
		}
		if len(in) != 36 && len(in) != 32 || !strings.EqualFold(strings.ReplaceAll(id.String(), "-", ""), strings.ReplaceAll(string(in), "-", "")) {
			t.Fatalf("ParseUUID(%q) = %s", in, id)
		}
	})
}

func FuzzUUIDScan(f *testing.F) {
	addUUIDSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, src := range []any{in, string(in)} {
			got := uuidSentinel
			err := got.Scan(src)
			checkUUID(t, "Scan", in, got, err)
			if err == nil {
				if _, isString := src.(string); isString && len(in) == 16 {
					t.Fatalf("Scan took the 16-character string %q as raw bytes", in)
				}
				back := uuidSentinel
				v, verr := got.Value()
				if got.IsZero() {
					continue
				}
				if verr != nil || back.Scan(v) != nil || back != got {
					t.Fatalf("Scan(%q) = %v does not round trip through Value", in, got)
				}
			}
		}
	})
}

func FuzzUUIDUnmarshalJSON(f *testing.F) {
	addUUIDSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		got := uuidSentinel
		err := got.UnmarshalJSON(in)
		checkUUID(t, "UnmarshalJSON", in, got, err)
		n := types.NullUUID{ID: uuidSentinel, Valid: true}
		nerr := n.UnmarshalJSON(in)
		if (err == nil) != (nerr == nil) {
			t.Fatalf("UnmarshalJSON(%q): UUID error %v, NullUUID error %v", in, err, nerr)
		}
		if nerr != nil && (!n.Valid || n.ID != uuidSentinel) {
			t.Fatalf("NullUUID.UnmarshalJSON(%q) changed n on error", in)
		}
	})
}

func FuzzUUIDUnmarshalBSONValue(f *testing.F) {
	for _, s := range []string{"\x10\x00\x00\x00\x04" + string(uuidRaw), "\x10\x00\x00\x00\x03" + string(uuidRaw), "%\x00\x00\x00" + uuidText + "\x00", "", "\x01\x00\x00\x00\x00"} {
		for _, typ := range []byte{0x02, 0x05, 0x0A, 0x07} {
			f.Add(typ, []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, typ byte, data []byte) {
		got := uuidSentinel
		err := got.UnmarshalBSONValue(typ, data)
		checkUUID(t, "UnmarshalBSONValue", data, got, err)
		if err == nil && !got.IsZero() {
			rt, rd, merr := got.MarshalBSONValue()
			back := uuidSentinel
			if merr != nil || back.UnmarshalBSONValue(rt, rd) != nil || back != got {
				t.Fatalf("UnmarshalBSONValue(%#x, %q) = %v does not round trip", typ, data, got)
			}
		}
	})
}

package types_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/types"
)

// Each fuzz test checks the round trip, not only the absence of panics:
// whatever input is accepted must re-encode to a form that decodes to the
// same ID, and whatever is rejected must wrap the type's sentinel and leave
// the destination unchanged.

func addObjectIDSeeds(f *testing.F) {
	for _, s := range []string{seedHex, "5FD049327FBB28868F4660A5", "", "null", `""`, `{"$oid":"` + seedHex + `"}`, "zz", strings.Repeat("0", 24)} {
		f.Add([]byte(s))
	}
}

var sentinelID = types.MustParseObjectID("4df2dcec2cdcd20936a8b817")

func checkObjectID(t *testing.T, what string, in []byte, got types.ObjectID, err error) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, types.ErrInvalidObjectID) {
			t.Fatalf("%s(%q): error %v does not wrap ErrInvalidObjectID", what, in, err)
		}
		if got != sentinelID {
			t.Fatalf("%s(%q): value changed on error", what, in)
		}
		return
	}
	back, perr := types.ParseObjectID(got.Hex())
	if perr != nil || back != got {
		t.Fatalf("%s(%q) = %v does not round trip through Hex", what, in, got)
	}
}

func FuzzParseObjectID(f *testing.F) {
	addObjectIDSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		id, err := types.ParseObjectID(string(in))
		if err != nil {
			if !errors.Is(err, types.ErrInvalidObjectID) || !id.IsZero() {
				t.Fatalf("ParseObjectID(%q) = %v, %v", in, id, err)
			}
			return
		}
		if !strings.EqualFold(id.Hex(), string(in)) {
			t.Fatalf("ParseObjectID(%q).Hex() = %s", in, id.Hex())
		}
	})
}

func FuzzObjectIDUnmarshalText(f *testing.F) {
	addObjectIDSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		id := sentinelID
		err := id.UnmarshalText(in)
		checkObjectID(t, "UnmarshalText", in, id, err)
		if err == nil {
			out, _ := id.MarshalText()
			var back types.ObjectID
			if back.UnmarshalText(out) != nil || back != id {
				t.Fatalf("text round trip of %v failed", id)
			}
		}
	})
}

func FuzzObjectIDUnmarshalJSON(f *testing.F) {
	addObjectIDSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		id := sentinelID
		err := id.UnmarshalJSON(in)
		checkObjectID(t, "UnmarshalJSON", in, id, err)
		if err == nil {
			out, _ := json.Marshal(id)
			var back types.ObjectID
			if back.UnmarshalJSON(out) != nil || back != id {
				t.Fatalf("JSON round trip of %v failed", id)
			}
		}
	})
}

func FuzzObjectIDScan(f *testing.F) {
	addObjectIDSeeds(f)
	f.Add(bytes.Repeat([]byte{0xff}, 12))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, src := range []any{in, string(in)} {
			id := sentinelID
			err := id.Scan(src)
			checkObjectID(t, "Scan", in, id, err)
			if err == nil {
				v, verr := id.Value()
				if id.IsZero() {
					if !errors.Is(verr, types.ErrZeroID) {
						t.Fatalf("Value of the zero ID: %v, want ErrZeroID", verr)
					}
					continue
				}
				var back types.ObjectID
				if back.Scan(v) != nil || back != id {
					t.Fatalf("SQL round trip of %v failed", id)
				}
			}
		}
	})
}

func FuzzObjectIDUnmarshalBSONValue(f *testing.F) {
	f.Add(byte(0x07), []byte(seedHex[:12]))
	f.Add(byte(0x02), append(binary.LittleEndian.AppendUint32(nil, 25), append([]byte(seedHex), 0)...))
	f.Add(byte(0x0A), []byte(nil))
	f.Add(byte(0x05), []byte{1, 2})
	f.Fuzz(func(t *testing.T, typ byte, data []byte) {
		id := sentinelID
		err := id.UnmarshalBSONValue(typ, data)
		checkObjectID(t, "UnmarshalBSONValue", data, id, err)
		if err == nil && id.IsZero() {
			if _, _, err := id.MarshalBSONValue(); !errors.Is(err, types.ErrZeroID) {
				t.Fatalf("MarshalBSONValue of the zero ID: %v", err)
			}
		} else if err == nil {
			bt, bd, _ := id.MarshalBSONValue()
			var back types.ObjectID
			if back.UnmarshalBSONValue(bt, bd) != nil || back != id {
				t.Fatalf("BSON round trip of %v failed", id)
			}
		}
	})
}

func checkSnowflake(t *testing.T, what string, in []byte, got types.Snowflake, err error) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, types.ErrInvalidSnowflake) || got != 77 {
			t.Fatalf("%s(%q) = %d, %v: want unchanged and ErrInvalidSnowflake", what, in, got, err)
		}
		return
	}
	if got < 0 {
		t.Fatalf("%s(%q) = negative %d", what, in, got)
	}
	back, perr := types.ParseSnowflake(got.String())
	if perr != nil || back != got {
		t.Fatalf("%s(%q) = %d does not round trip", what, in, got)
	}
}

func addSnowflakeSeeds(f *testing.F) {
	for _, s := range []string{"0", "1541815603606036480", "9223372036854775807", "9223372036854775808", "-1", `"12"`, "null", "", "1e3", "007"} {
		f.Add([]byte(s))
	}
}

func FuzzParseSnowflake(f *testing.F) {
	addSnowflakeSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := types.ParseSnowflake(string(in))
		if err != nil {
			if !errors.Is(err, types.ErrInvalidSnowflake) || s != 0 {
				t.Fatalf("ParseSnowflake(%q) = %d, %v", in, s, err)
			}
			return
		}
		if want, serr := strconv.ParseUint(string(in), 10, 63); serr != nil || int64(want) != int64(s) {
			t.Fatalf("ParseSnowflake(%q) = %d, strconv says %d, %v", in, s, want, serr)
		}
	})
}

func FuzzSnowflakeUnmarshalText(f *testing.F) {
	addSnowflakeSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		s := types.Snowflake(77)
		err := s.UnmarshalText(in)
		checkSnowflake(t, "UnmarshalText", in, s, err)
	})
}

func FuzzSnowflakeUnmarshalJSON(f *testing.F) {
	addSnowflakeSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		s := types.Snowflake(77)
		err := s.UnmarshalJSON(in)
		checkSnowflake(t, "UnmarshalJSON", in, s, err)
		if err == nil {
			out, _ := json.Marshal(s)
			var back types.Snowflake
			if back.UnmarshalJSON(out) != nil || back != s {
				t.Fatalf("JSON round trip of %d failed", s)
			}
		}
	})
}

func FuzzSnowflakeScan(f *testing.F) {
	addSnowflakeSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		var n int64
		if len(in) >= 8 {
			n = int64(binary.LittleEndian.Uint64(in))
		}
		for _, src := range []any{in, string(in), n} {
			s := types.Snowflake(77)
			err := s.Scan(src)
			checkSnowflake(t, "Scan", in, s, err)
			if err == nil {
				v, verr := s.Value()
				if s == 0 {
					if !errors.Is(verr, types.ErrZeroID) {
						t.Fatalf("Value of the zero Snowflake: %v, want ErrZeroID", verr)
					}
					continue
				}
				var back types.Snowflake
				if back.Scan(v) != nil || back != s {
					t.Fatalf("SQL round trip of %d failed", s)
				}
			}
		}
	})
}

func FuzzSnowflakeUnmarshalBSONValue(f *testing.F) {
	f.Add(byte(0x12), binary.LittleEndian.AppendUint64(nil, 42))
	f.Add(byte(0x10), binary.LittleEndian.AppendUint32(nil, 42))
	f.Add(byte(0x01), binary.LittleEndian.AppendUint64(nil, 0x4045000000000000))
	f.Add(byte(0x02), append(binary.LittleEndian.AppendUint32(nil, 3), '4', '2', 0))
	f.Add(byte(0x0A), []byte(nil))
	f.Fuzz(func(t *testing.T, typ byte, data []byte) {
		s := types.Snowflake(77)
		err := s.UnmarshalBSONValue(typ, data)
		checkSnowflake(t, "UnmarshalBSONValue", data, s, err)
		if err == nil && s == 0 {
			if _, _, err := s.MarshalBSONValue(); !errors.Is(err, types.ErrZeroID) {
				t.Fatalf("MarshalBSONValue(0): %v", err)
			}
		} else if err == nil {
			bt, bd, _ := s.MarshalBSONValue()
			var back types.Snowflake
			if back.UnmarshalBSONValue(bt, bd) != nil || back != s {
				t.Fatalf("BSON round trip of %d failed", s)
			}
		}
	})
}

// noValueJSON is the JSON that every Null form reads as NULL: null or "",
// with JSON whitespace around it.
func noValueJSON(in []byte) bool {
	s := strings.Trim(string(in), " \t\r\n")
	return s == "null" || s == `""`
}

func FuzzNullObjectIDUnmarshalJSON(f *testing.F) {
	addObjectIDSeeds(f)
	f.Add([]byte(" null"))
	f.Add([]byte(` "" `))
	f.Add([]byte("\u00a0null"))
	f.Fuzz(func(t *testing.T, in []byte) {
		before := types.NullObjectID{ID: sentinelID, Valid: true}
		n := before
		err := n.UnmarshalJSON(in)
		if err != nil {
			if !errors.Is(err, types.ErrInvalidObjectID) || n != before {
				t.Fatalf("UnmarshalJSON(%q) = %+v, %v", in, n, err)
			}
			return
		}
		if noValueJSON(in) {
			if n != (types.NullObjectID{}) {
				t.Fatalf("UnmarshalJSON(%q) = %+v, want NULL", in, n)
			}
			return
		}
		plain := sentinelID
		if perr := plain.UnmarshalJSON(in); perr != nil || !n.Valid || n.ID != plain {
			t.Fatalf("UnmarshalJSON(%q) = %+v; ObjectID reads %v, %v", in, n, plain, perr)
		}
		out, _ := n.MarshalJSON()
		var back types.NullObjectID
		if back.UnmarshalJSON(out) != nil || back != n {
			t.Fatalf("JSON round trip of %+v failed", n)
		}
	})
}

func FuzzNullSnowflakeUnmarshalJSON(f *testing.F) {
	addSnowflakeSeeds(f)
	f.Add([]byte(" null"))
	f.Add([]byte(` "" `))
	f.Add([]byte(`"\u0031"`))
	f.Fuzz(func(t *testing.T, in []byte) {
		before := types.NullSnowflake{ID: 77, Valid: true}
		n := before
		err := n.UnmarshalJSON(in)
		if err != nil {
			if !errors.Is(err, types.ErrInvalidSnowflake) || n != before {
				t.Fatalf("UnmarshalJSON(%q) = %+v, %v", in, n, err)
			}
			return
		}
		if noValueJSON(in) {
			if n != (types.NullSnowflake{}) {
				t.Fatalf("UnmarshalJSON(%q) = %+v, want NULL", in, n)
			}
			return
		}
		plain := types.Snowflake(77)
		if perr := plain.UnmarshalJSON(in); perr != nil || !n.Valid || n.ID != plain {
			t.Fatalf("UnmarshalJSON(%q) = %+v; Snowflake reads %v, %v", in, n, plain, perr)
		}
		out, _ := n.MarshalJSON()
		var back types.NullSnowflake
		if back.UnmarshalJSON(out) != nil || back != n {
			t.Fatalf("JSON round trip of %+v failed", n)
		}
	})
}

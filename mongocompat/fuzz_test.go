package mongocompat_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/types"
)

// fuzzSeeds adds one {"v": value} seed per BSON type the decoders treat
// specially, plus malformed ones.
func fuzzSeeds(f *testing.F) {
	id := types.MustObjectIDFromHex("6592008029c8c3e4dc76256c")
	f.Add(byte(0x07), id[:])
	f.Add(byte(0x07), id[:5])
	f.Add(byte(0x02), bsonString(id.Hex()))
	f.Add(byte(0x02), bsonString("1234567890"))
	f.Add(byte(0x02), []byte{3, 0, 0, 0, 'a', 'b'})
	f.Add(byte(0x0A), []byte(nil))
	f.Add(byte(0x12), le64(1<<62))
	f.Add(byte(0x12), le64(1<<63))
	f.Add(byte(0x10), binary.LittleEndian.AppendUint32(nil, 7))
	f.Add(byte(0x01), le64(0x4014000000000000))
	f.Add(byte(0x01), le64(0x4014000000000001))
	f.Add(byte(0x05), []byte{1, 0, 0, 0, 0, 9})
	f.Add(byte(0x08), []byte{1})
	f.Add(byte(0x03), []byte{5, 0, 0, 0, 0})
}

// fuzzAgree decodes the document {"v": value}, if well formed, with every setup into a struct holding a
// T and checks that each agrees with the types' own UnmarshalBSONValue
// method as the v2 driver calls it (setup 1, "no registration"): both fail
// or both give the same value; a decoded value re-encodes and decodes to
// itself.
func fuzzAgree[T comparable](t *testing.T, typ byte, data []byte) {
	doc := bsonDoc(typ, data)
	if bson.Raw(doc).Validate() != nil {
		// Malformed documents are the drivers' readers' business, not the
		// codecs' (v1.17.10's reader even panics on some).
		return
	}
	all := setups()
	var want struct{ V T }
	wantErr := all[1].unmarshal(doc, &want)
	for _, s := range all {
		var got struct{ V T }
		err := s.unmarshal(doc, &got)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%s: error %v, the type's method gives %v", s.name, err, wantErr)
		}
		if err != nil {
			continue
		}
		if got != want {
			t.Fatalf("%s: decoded %v, the type's method gives %v", s.name, got.V, want.V)
		}
		enc, err := s.marshal(got)
		if isZeroID(got.V) {
			// A zero ID is never written, by any setup.
			if !errors.Is(err, types.ErrZeroID) {
				t.Fatalf("%s: re-encode zero %v: %v, want ErrZeroID", s.name, got.V, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: re-encode %v: %v", s.name, got.V, err)
		}
		var again struct{ V T }
		if err := s.unmarshal(enc, &again); err != nil || again != got {
			t.Fatalf("%s: round trip of %v gave %v, %v", s.name, got.V, again.V, err)
		}
	}
}

// isZeroID reports whether v is a zero ObjectID or Snowflake, or a valid
// Null form holding one.
func isZeroID(v any) bool {
	switch v := v.(type) {
	case types.ObjectID:
		return v.IsZero()
	case types.Snowflake:
		return v == 0
	case types.NullObjectID:
		return v.Valid && v.ID.IsZero()
	case types.NullSnowflake:
		return v.Valid && v.ID == 0
	}
	return false
}

func FuzzDecodeObjectID(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, typ byte, data []byte) {
		fuzzAgree[types.ObjectID](t, typ, data)
		fuzzAgree[types.NullObjectID](t, typ, data)
	})
}

func FuzzDecodeSnowflake(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, typ byte, data []byte) {
		fuzzAgree[types.Snowflake](t, typ, data)
		fuzzAgree[types.NullSnowflake](t, typ, data)
	})
}

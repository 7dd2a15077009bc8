package types_test

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/types"
)

// The BSON tests use mongo-driver v2's encoder, so they prove the methods
// produce what the driver and the server expect; the types package itself
// does not import the driver.

type bsonDoc struct {
	ID   types.ObjectID      `bson:"_id"`
	Seq  types.Snowflake     `bson:"seq"`
	Ref  types.NullObjectID  `bson:"ref"`
	Next types.NullSnowflake `bson:"next"`
}

func TestBSONIsObjectIdAndInt64(t *testing.T) {
	id := types.MustParseObjectID(seedHex)
	raw, err := bson.Marshal(bsonDoc{ID: id, Seq: 1541815603606036480})
	if err != nil {
		t.Fatal(err)
	}
	doc := bson.Raw(raw)
	if v := doc.Lookup("_id"); v.Type != bson.TypeObjectID || v.ObjectID() != bson.ObjectID(id) {
		t.Fatalf("_id encoded as %v %v", v.Type, v)
	}
	if v := doc.Lookup("seq"); v.Type != bson.TypeInt64 || v.Int64() != 1541815603606036480 {
		t.Fatalf("seq encoded as %v %v", v.Type, v)
	}
	if v := doc.Lookup("ref"); v.Type != bson.TypeNull {
		t.Fatalf("invalid NullObjectID encoded as %v", v.Type)
	}
	if v := doc.Lookup("next"); v.Type != bson.TypeNull {
		t.Fatalf("invalid NullSnowflake encoded as %v", v.Type)
	}
	var back bsonDoc
	if err := bson.Unmarshal(raw, &back); err != nil || back.ID != id || back.Seq != 1541815603606036480 || back.Ref.Valid || back.Next.Valid {
		t.Fatalf("round trip = %+v, %v", back, err)
	}
	full := bsonDoc{ID: id, Seq: 1, Ref: types.NullObjectID{ID: id, Valid: true}, Next: types.NullSnowflake{ID: 2, Valid: true}}
	raw, _ = bson.Marshal(full)
	back = bsonDoc{}
	if err := bson.Unmarshal(raw, &back); err != nil || back != full {
		t.Fatalf("round trip = %+v, %v", back, err)
	}
	// The driver's own ObjectID reads what idkit wrote.
	var theirs struct {
		ID bson.ObjectID `bson:"_id"`
	}
	if err := bson.Unmarshal(raw, &theirs); err != nil || theirs.ID.Hex() != seedHex {
		t.Fatalf("driver decode = %v, %v", theirs.ID, err)
	}
}

func TestBSONDecodesWhatTheDriverAccepts(t *testing.T) {
	id := types.MustParseObjectID(seedHex)
	tests := []struct {
		name    string
		doc     bson.D
		wantID  types.ObjectID
		wantSeq types.Snowflake
		wantErr error
	}{
		{"hex string and int32", bson.D{{Key: "_id", Value: seedHex}, {Key: "seq", Value: int32(5)}}, id, 5, nil},
		{"null", bson.D{{Key: "_id", Value: nil}, {Key: "seq", Value: nil}}, types.ObjectID{}, 0, nil},
		{"ObjectId and decimal string", bson.D{{Key: "_id", Value: bson.ObjectID(id)}, {Key: "seq", Value: "77"}}, id, 77, nil},
		{"double", bson.D{{Key: "_id", Value: bson.ObjectID(id)}, {Key: "seq", Value: 12.0}}, id, 12, nil},
		{"bad hex", bson.D{{Key: "_id", Value: "nothex"}}, types.ObjectID{}, 0, types.ErrInvalidObjectID},
		{"binary", bson.D{{Key: "_id", Value: bson.Binary{Data: id[:]}}}, types.ObjectID{}, 0, types.ErrInvalidObjectID},
		{"int for ObjectID", bson.D{{Key: "_id", Value: int64(1)}}, types.ObjectID{}, 0, types.ErrInvalidObjectID},
		{"negative", bson.D{{Key: "seq", Value: int64(-3)}}, types.ObjectID{}, 0, types.ErrInvalidSnowflake},
		{"fraction", bson.D{{Key: "seq", Value: 1.5}}, types.ObjectID{}, 0, types.ErrInvalidSnowflake},
		{"huge double", bson.D{{Key: "seq", Value: math.Pow(2, 60)}}, types.ObjectID{}, 0, types.ErrInvalidSnowflake},
		{"bool", bson.D{{Key: "seq", Value: true}}, types.ObjectID{}, 0, types.ErrInvalidSnowflake},
		{"bad decimal", bson.D{{Key: "seq", Value: "1e3"}}, types.ObjectID{}, 0, types.ErrInvalidSnowflake},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := bson.Marshal(tt.doc)
			if err != nil {
				t.Fatal(err)
			}
			var got bsonDoc
			err = bson.Unmarshal(raw, &got)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || got.ID != tt.wantID || got.Seq != tt.wantSeq {
				t.Fatalf("got %+v, %v", got, err)
			}
		})
	}
}

func TestUnmarshalBSONValueRejectsMalformedData(t *testing.T) {
	id := types.MustParseObjectID(seedHex)
	before := id
	for _, c := range []struct {
		typ  byte
		data []byte
	}{
		{0x07, make([]byte, 11)},
		{0x02, []byte{1, 0, 0}},
		{0x02, []byte{30, 0, 0, 0, 'a', 0}},
		{0x02, []byte{2, 0, 0, 0, 'a', 'b'}},
	} {
		if err := id.UnmarshalBSONValue(c.typ, c.data); !errors.Is(err, types.ErrInvalidObjectID) || id != before {
			t.Errorf("UnmarshalBSONValue(%#x, %v) = %v", c.typ, c.data, err)
		}
	}
	s := types.Snowflake(3)
	for _, c := range []struct {
		typ  byte
		data []byte
	}{{0x12, make([]byte, 7)}, {0x10, make([]byte, 3)}, {0x01, make([]byte, 4)}, {0x02, nil}} {
		if err := s.UnmarshalBSONValue(c.typ, c.data); !errors.Is(err, types.ErrInvalidSnowflake) || s != 3 {
			t.Errorf("UnmarshalBSONValue(%#x, %v) = %v", c.typ, c.data, err)
		}
	}
}

// The Null forms' IsZero doc: NULL is left out by bson omitempty and json
// omitzero; a valid value is kept, so a valid zero ID reaches
// MarshalBSONValue and is refused there.
func TestNullFormsOmitEmpty(t *testing.T) {
	type doc struct {
		A types.NullObjectID  `bson:"a,omitempty" json:"a,omitzero"`
		B types.NullSnowflake `bson:"b,omitempty" json:"b,omitzero"`
	}
	raw, err := bson.Marshal(doc{})
	if err != nil {
		t.Fatal(err)
	}
	if elems, _ := bson.Raw(raw).Elements(); len(elems) != 0 {
		t.Fatalf("NULL fields were encoded: %v", bson.Raw(raw))
	}
	raw, _ = bson.Marshal(doc{A: types.NullObjectID{ID: seedID(), Valid: true}, B: types.NullSnowflake{ID: 5, Valid: true}})
	if elems, _ := bson.Raw(raw).Elements(); len(elems) != 2 {
		t.Fatalf("valid fields were left out: %v", bson.Raw(raw))
	}
	for _, d := range []doc{{A: types.NullObjectID{ID: types.ObjectID{}, Valid: true}}, {B: types.NullSnowflake{ID: 0, Valid: true}}} {
		if raw, err := bson.Marshal(d); !errors.Is(err, types.ErrZeroID) {
			t.Errorf("valid zero ID %+v: %v, %v", d, bson.Raw(raw), err)
		}
	}
	b, _ := json.Marshal(doc{})
	if string(b) != "{}" {
		t.Fatalf("json omitzero: %s", b)
	}
}

func seedID() types.ObjectID { return types.MustParseObjectID(seedHex) }

// A zero ObjectID or Snowflake is never written as BSON, as SQL's Value
// never writes it: in a document's _id, in another field, in bson.M and
// bson.D, and in a filter. The Null forms write NULL as null, and omitempty
// leaves a zero ID out, as SQL stores NULL and GORM skips zero fields.
func TestBSONZeroIDIsRefused(t *testing.T) {
	type objKey struct {
		ID   types.ObjectID `bson:"_id"`
		Name string         `bson:"name"`
	}
	type snowKey struct {
		ID types.Snowflake `bson:"_id"`
	}
	type field struct {
		ID     types.ObjectID  `bson:"_id"`
		Parent types.ObjectID  `bson:"parent"`
		Seq    types.Snowflake `bson:"seq"`
	}
	ptr := types.ObjectID{}
	for _, c := range []struct {
		name string
		doc  any
	}{
		{"ObjectID _id", objKey{Name: "x"}},
		{"Snowflake _id", snowKey{}},
		{"pointer to zero _id", struct {
			ID *types.ObjectID `bson:"_id"`
		}{&ptr}},
		{"ObjectID field", field{ID: seedID(), Seq: 1}},
		{"Snowflake field", field{ID: seedID(), Parent: seedID()}},
		{"valid NullObjectID of zero", struct {
			R types.NullObjectID `bson:"r"`
		}{types.NullObjectID{ID: types.ObjectID{}, Valid: true}}},
		{"valid NullSnowflake of zero", struct {
			R types.NullSnowflake `bson:"r"`
		}{types.NullSnowflake{ID: 0, Valid: true}}},
		{"bson.M filter", bson.M{"_id": types.ObjectID{}}},
		{"bson.D filter", bson.D{{Key: "_id", Value: bson.M{"$in": bson.A{types.Snowflake(0)}}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw, err := bson.Marshal(c.doc)
			if !errors.Is(err, types.ErrZeroID) {
				t.Fatalf("Marshal = %v, %v; want an error wrapping ErrZeroID", bson.Raw(raw), err)
			}
		})
	}

	t.Run("omitempty leaves a zero ID out", func(t *testing.T) {
		raw, err := bson.Marshal(struct {
			ID     types.ObjectID  `bson:"_id"`
			Parent types.ObjectID  `bson:"parent,omitempty"`
			Seq    types.Snowflake `bson:"seq,omitempty"`
		}{ID: seedID()})
		if err != nil {
			t.Fatal(err)
		}
		if elems, _ := bson.Raw(raw).Elements(); len(elems) != 1 {
			t.Fatalf("zero fields were encoded: %v", bson.Raw(raw))
		}
	})
	t.Run("invalid Null forms are null", func(t *testing.T) {
		raw, err := bson.Marshal(bson.M{"a": types.NullObjectID{}, "b": types.NullSnowflake{}})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := bson.Raw(raw).Lookup("a"), bson.Raw(raw).Lookup("b"); a.Type != bson.TypeNull || b.Type != bson.TypeNull {
			t.Fatalf("a %v, b %v", a.Type, b.Type)
		}
	})
	t.Run("a stored zero ObjectId still reads", func(t *testing.T) {
		raw, _ := bson.Marshal(bson.M{"_id": bson.ObjectID{}, "seq": int64(0)})
		got := field{ID: seedID(), Seq: 9}
		if err := bson.Unmarshal(raw, &got); err != nil || !got.ID.IsZero() || got.Seq != 0 {
			t.Fatalf("got %+v, %v", got, err)
		}
	})
}

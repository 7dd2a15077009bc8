package mongocompat_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bsonv1 "go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsoncodec"
	"go.mongodb.org/mongo-driver/bson/bsonrw"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/mongocompat/mongov1"
	"github.com/idkit-go/idkit/mongocompat/mongov2"
	"github.com/idkit-go/idkit/types"
)

// allDoc holds every idkit type, by value and by pointer.
type allDoc struct {
	ID  types.ObjectID      `bson:"_id"`
	S   types.Snowflake     `bson:"s"`
	NO  types.NullObjectID  `bson:"no"`
	NS  types.NullSnowflake `bson:"ns"`
	PO  *types.ObjectID     `bson:"po"`
	PS  *types.Snowflake    `bson:"ps"`
	PNO *types.NullObjectID `bson:"pno"`
}

var testID = types.MustParseObjectID("6592008029c8c3e4dc76256c")

func fullDoc() allDoc {
	id, s := testID, types.Snowflake(1<<60+5)
	no := types.NullObjectID{ID: testID, Valid: true}
	return allDoc{ID: testID, S: 7, NO: types.NullObjectID{ID: testID, Valid: true}, NS: types.NullSnowflake{ID: 9, Valid: true}, PO: &id, PS: &s, PNO: &no}
}

// wantTypes is the BSON type of each field of fullDoc (f) and of an allDoc
// with only its ID and S set (z).
var wantTypes = []struct {
	key  string
	f, z byte
}{
	{"_id", 0x07, 0x07}, {"s", 0x12, 0x12}, {"no", 0x07, 0x0A}, {"ns", 0x12, 0x0A},
	{"po", 0x07, 0x0A}, {"ps", 0x12, 0x0A}, {"pno", 0x07, 0x0A},
}

// encoders and decoders of each driver setup under test.
type codecSetup struct {
	name      string
	marshal   func(any) ([]byte, error)
	unmarshal func([]byte, any) error
}

// marshalV1 and unmarshalV1 encode and decode a document with the v1 driver
// and reg as its Collection methods do: a bson.Encoder on a value writer, a
// bson.Decoder on a document reader.
func marshalV1(reg *bsoncodec.Registry, v any) ([]byte, error) {
	var buf bytes.Buffer
	vw, err := bsonrw.NewBSONValueWriter(&buf)
	if err != nil {
		return nil, err
	}
	enc, err := bsonv1.NewEncoder(vw)
	if err != nil {
		return nil, err
	}
	if err := enc.SetRegistry(reg); err != nil {
		return nil, err
	}
	err = enc.Encode(v)
	return buf.Bytes(), err
}

func unmarshalV1(reg *bsoncodec.Registry, data []byte, v any) error {
	dec, err := bsonv1.NewDecoder(bsonrw.NewBSONDocumentReader(data))
	if err != nil {
		return err
	}
	if err := dec.SetRegistry(reg); err != nil {
		return err
	}
	return dec.Decode(v)
}

func setups() []codecSetup {
	reg1 := mongov1.Registry()
	reg2 := mongov2.Registry()
	return []codecSetup{
		{"v1/mongov1.Registry",
			func(v any) ([]byte, error) { return marshalV1(reg1, v) },
			func(b []byte, v any) error { return unmarshalV1(reg1, b, v) }},
		{"v2/no registration", bson.Marshal, bson.Unmarshal},
		{"v2/mongov2.Registry",
			func(v any) ([]byte, error) {
				var buf bytes.Buffer
				enc := bson.NewEncoder(bson.NewDocumentWriter(&buf))
				enc.SetRegistry(reg2)
				err := enc.Encode(v)
				return buf.Bytes(), err
			},
			func(b []byte, v any) error {
				// RawValue reads from the bytes in place, as the driver does
				// with server replies (a bson.Decoder on an io.Reader would
				// first allocate whatever length a malformed value claims).
				return bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: b}.UnmarshalWithRegistry(reg2, v)
			}},
	}
}

func TestCodecsRoundTrip(t *testing.T) {
	for _, s := range setups() {
		t.Run(s.name, func(t *testing.T) {
			for _, in := range []allDoc{fullDoc(), {ID: testID, S: 7}} {
				data, err := s.marshal(in)
				require.NoError(t, err)
				raw := bson.Raw(data)
				for _, w := range wantTypes {
					want := w.f
					if in.PO == nil {
						want = w.z
					}
					assert.Equal(t, bson.Type(want), raw.Lookup(w.key).Type, "field %s", w.key)
				}
				out := allDoc{S: 99, NO: types.NullObjectID{ID: types.NewObjectID(), Valid: true}}
				require.NoError(t, s.unmarshal(data, &out))
				assert.Equal(t, in, out)
			}
		})
	}
}

// TestCodecsRefuseZeroID: every setup refuses to write a zero ObjectID or
// Snowflake, as an _id, another field, the ID of a valid Null form, a
// pointer's target, or a filter value, with an error wrapping ErrZeroID, as
// the types' own MarshalBSONValue and SQL's Value do; an invalid Null form
// is null and omitempty leaves a zero ID out.
func TestCodecsRefuseZeroID(t *testing.T) {
	zero := types.ObjectID{}
	refused := []struct {
		name string
		doc  any
	}{
		{"ObjectID _id", struct {
			ID types.ObjectID `bson:"_id"`
		}{}},
		{"Snowflake _id", struct {
			ID types.Snowflake `bson:"_id"`
		}{}},
		{"pointer to zero ObjectID", struct {
			ID *types.ObjectID `bson:"_id"`
		}{&zero}},
		{"ObjectID field", struct {
			ID  types.ObjectID `bson:"_id"`
			Ref types.ObjectID `bson:"ref"`
		}{ID: testID}},
		{"Snowflake field", struct {
			ID  types.ObjectID  `bson:"_id"`
			Seq types.Snowflake `bson:"seq"`
		}{ID: testID}},
		{"valid NullObjectID of zero", struct {
			N types.NullObjectID `bson:"n"`
		}{types.NullObjectID{ID: zero, Valid: true}}},
		{"valid NullSnowflake of zero", struct {
			N types.NullSnowflake `bson:"n"`
		}{types.NullSnowflake{ID: 0, Valid: true}}},
		{"filter", bson.M{"_id": bson.M{"$in": bson.A{testID, zero}}}},
	}
	for _, s := range setups() {
		t.Run(s.name, func(t *testing.T) {
			for _, c := range refused {
				_, err := s.marshal(c.doc)
				assert.ErrorIs(t, err, types.ErrZeroID, c.name)
			}
			data, err := s.marshal(struct {
				ID  types.ObjectID      `bson:"_id"`
				Ref types.ObjectID      `bson:"ref,omitempty"`
				Seq types.Snowflake     `bson:"seq,omitempty"`
				N   types.NullSnowflake `bson:"n"`
			}{ID: testID})
			require.NoError(t, err)
			elems, err := bson.Raw(data).Elements()
			require.NoError(t, err)
			require.Len(t, elems, 2, "omitempty leaves zero IDs out")
			assert.Equal(t, bson.TypeNull, bson.Raw(data).Lookup("n").Type)
		})
	}
}

// TestCodecsRefuseNegativeSnowflake: every setup refuses to write a negative
// Snowflake, which no decoder would read back, as the type's own
// MarshalBSONValue does.
func TestCodecsRefuseNegativeSnowflake(t *testing.T) {
	for _, s := range setups() {
		t.Run(s.name, func(t *testing.T) {
			_, err := s.marshal(struct {
				S types.Snowflake `bson:"s"`
			}{-5})
			assert.ErrorIs(t, err, types.ErrInvalidSnowflake)
			_, err = s.marshal(struct {
				S types.NullSnowflake `bson:"s"`
			}{types.NullSnowflake{ID: -5, Valid: true}})
			assert.ErrorIs(t, err, types.ErrInvalidSnowflake)
		})
	}
}

// TestV1WithoutRegistry shows why v1 needs the codecs: its default registry
// stores the [12]byte as BSON binary.
func TestV1WithoutRegistry(t *testing.T) {
	data, err := bsonv1.Marshal(struct {
		ID types.ObjectID `bson:"_id"`
	}{testID})
	require.NoError(t, err)
	assert.Equal(t, bsonv1.TypeBinary, bsonv1.Raw(data).Lookup("_id").Type)
}

// TestV2ValuesAndFilters checks idkit values inside bson.M, bson.D, filter
// operators and pointers with the v2 driver and no registration.
func TestV2ValuesAndFilters(t *testing.T) {
	id := testID
	var nilID *types.ObjectID
	cases := []struct {
		name string
		doc  any
		path []string
		want bson.Type
	}{
		{"bson.M", bson.M{"_id": id}, []string{"_id"}, bson.TypeObjectID},
		{"bson.D", bson.D{{Key: "_id", Value: id}}, []string{"_id"}, bson.TypeObjectID},
		{"$gte filter", bson.M{"_id": bson.M{"$gte": id}}, []string{"_id", "$gte"}, bson.TypeObjectID},
		{"$in filter", bson.M{"_id": bson.M{"$in": bson.A{id}}}, []string{"_id", "$in", "0"}, bson.TypeObjectID},
		{"pointer", bson.M{"_id": &id}, []string{"_id"}, bson.TypeObjectID},
		{"nil pointer", bson.M{"_id": nilID}, []string{"_id"}, bson.TypeNull},
		{"Snowflake", bson.M{"s": types.Snowflake(5)}, []string{"s"}, bson.TypeInt64},
		{"NullSnowflake NULL", bson.D{{Key: "s", Value: types.NullSnowflake{}}}, []string{"s"}, bson.TypeNull},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := bson.Marshal(c.doc)
			require.NoError(t, err)
			v := bson.Raw(data).Lookup(c.path...)
			assert.Equal(t, c.want, v.Type)
			if c.want == bson.TypeObjectID {
				assert.Equal(t, bson.ObjectID(id), v.ObjectID())
			}
		})
	}
}

// TestMapObjectIDs checks decoding into interface values with and without
// the type-map entry.
func TestMapObjectIDs(t *testing.T) {
	data, err := bson.Marshal(bson.D{{Key: "_id", Value: testID}, {Key: "sub", Value: bson.D{{Key: "ref", Value: testID}}}})
	require.NoError(t, err)

	var plain bson.M
	require.NoError(t, bson.Unmarshal(data, &plain))
	assert.Equal(t, bson.ObjectID(testID), plain["_id"])

	reg2 := mongov2.Registry()
	mongov2.MapObjectIDs(reg2)
	var m2 bson.M
	dec := bson.NewDecoder(bson.NewDocumentReader(bytes.NewReader(data)))
	dec.SetRegistry(reg2)
	require.NoError(t, dec.Decode(&m2))
	assert.Equal(t, testID, m2["_id"])
	assert.Equal(t, testID, m2["sub"].(bson.D)[0].Value)

	reg1 := mongov1.Registry()
	var m1 bsonv1.M
	require.NoError(t, unmarshalV1(reg1, data, &m1))
	assert.Equal(t, primitive.ObjectID(testID), m1["_id"])
	mongov1.MapObjectIDs(reg1)
	m1 = nil
	require.NoError(t, unmarshalV1(reg1, data, &m1))
	assert.Equal(t, testID, m1["_id"])
}

// The drivers' ObjectIDs and types.ObjectID convert with a plain type
// conversion, which keeps the 12 bytes.
func TestConversions(t *testing.T) {
	assert.Equal(t, testID.Hex(), primitive.ObjectID(testID).Hex())
	assert.Equal(t, testID, types.ObjectID(primitive.ObjectID(testID)))
	assert.Equal(t, testID.Hex(), bson.ObjectID(testID).Hex())
	oid := bson.NewObjectID()
	assert.Equal(t, oid.Hex(), types.ObjectID(oid).Hex())
}

// bsonDoc returns the document {"v": value} with value of BSON type typ and
// raw bytes data.
func bsonDoc(typ byte, data []byte) []byte {
	n := 4 + 1 + 2 + len(data) + 1
	b := binary.LittleEndian.AppendUint32(make([]byte, 0, n), uint32(n))
	b = append(b, typ, 'v', 0)
	b = append(b, data...)
	return append(b, 0)
}

func bsonString(s string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(s)+1))
	return append(append(b, s...), 0)
}

func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// TestDecodeAccepts runs every decoder on the values the drivers may meet
// and checks they agree with the types' own UnmarshalBSONValue methods.
func TestDecodeAccepts(t *testing.T) {
	cases := []struct {
		name    string
		typ     byte
		data    []byte
		wantOID error // nil: accepted
		wantSF  error
	}{
		{"ObjectId", 0x07, testID[:], nil, types.ErrInvalidSnowflake},
		{"hex string", 0x02, bsonString(testID.Hex()), nil, types.ErrInvalidSnowflake},
		{"decimal string", 0x02, bsonString("12345"), types.ErrInvalidObjectID, nil},
		{"bad hex", 0x02, bsonString("zz92008029c8c3e4dc76256c"), types.ErrInvalidObjectID, types.ErrInvalidSnowflake},
		{"null", 0x0A, nil, nil, nil},
		{"int64", 0x12, le64(77), types.ErrInvalidObjectID, nil},
		{"negative int64", 0x12, le64(1 << 63), types.ErrInvalidObjectID, types.ErrInvalidSnowflake},
		{"int32", 0x10, binary.LittleEndian.AppendUint32(nil, 5), types.ErrInvalidObjectID, nil},
		{"double", 0x01, le64(0x4014000000000000), types.ErrInvalidObjectID, nil}, // 5.0
		{"binary", 0x05, append([]byte{12, 0, 0, 0, 0}, testID[:]...), types.ErrInvalidObjectID, types.ErrInvalidSnowflake},
		{"boolean", 0x08, []byte{1}, types.ErrInvalidObjectID, types.ErrInvalidSnowflake},
	}
	for _, s := range setups() {
		for _, c := range cases {
			t.Run(s.name+"/"+c.name, func(t *testing.T) {
				doc := bsonDoc(c.typ, c.data)
				check := func(out, want any, err, wantErr error) {
					t.Helper()
					if wantErr != nil {
						assert.ErrorIs(t, err, wantErr)
						return
					}
					require.NoError(t, err)
					assert.Equal(t, want, out)
				}
				var o, wo struct{ V types.ObjectID }
				err := s.unmarshal(doc, &o)
				werr := wo.V.UnmarshalBSONValue(c.typ, c.data)
				check(o, wo, err, c.wantOID)
				check(o, wo, werr, c.wantOID) // the method agrees with the table

				var sf, wsf struct{ V types.Snowflake }
				err = s.unmarshal(doc, &sf)
				_ = wsf.V.UnmarshalBSONValue(c.typ, c.data)
				check(sf, wsf, err, c.wantSF)

				var no, wno struct{ V types.NullObjectID }
				err = s.unmarshal(doc, &no)
				_ = wno.V.UnmarshalBSONValue(c.typ, c.data)
				check(no, wno, err, c.wantOID)
				if c.typ == 0x0A {
					assert.False(t, no.V.Valid)
				}
				var ns, wns struct{ V types.NullSnowflake }
				err = s.unmarshal(doc, &ns)
				_ = wns.V.UnmarshalBSONValue(c.typ, c.data)
				check(ns, wns, err, c.wantSF)
			})
		}
	}
}

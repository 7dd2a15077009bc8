//go:build go1.27

package mongocompat_test

import (
	"bytes"
	"testing"
	"uuid"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bsonv1 "go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/mongocompat"
	"github.com/idkit-go/idkit/mongocompat/mongov1"
	"github.com/idkit-go/idkit/mongocompat/mongov2"
	"github.com/idkit-go/idkit/types"
)

type stdUUIDDoc struct {
	ID  uuid.UUID  `bson:"_id"`
	Ptr *uuid.UUID `bson:"ptr"`
}

// bsonCodec is one way to marshal and unmarshal documents.
type bsonCodec struct {
	name      string
	marshal   func(any) ([]byte, error)
	unmarshal func([]byte, any) error
}

func stdUUIDCodecs() (none, registered []bsonCodec) {
	reg1, reg2 := mongov1.Registry(), mongov2.Registry()
	none = []bsonCodec{
		{"v2", bson.Marshal, bson.Unmarshal},
		{"v1", bsonv1.Marshal, bsonv1.Unmarshal},
	}
	registered = []bsonCodec{
		{"v2/mongov2.Registry", func(v any) ([]byte, error) { return marshalV2(reg2, v) },
			func(b []byte, v any) error { return unmarshalV2(reg2, b, v) }},
		{"v1/mongov1.Registry", func(v any) ([]byte, error) { return marshalV1(reg1, v) },
			func(b []byte, v any) error { return unmarshalV1(reg1, b, v) }},
	}
	return none, registered
}

func marshalV2(reg *bson.Registry, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := bson.NewEncoder(bson.NewDocumentWriter(&buf))
	enc.SetRegistry(reg)
	err := enc.Encode(v)
	return buf.Bytes(), err
}

func unmarshalV2(reg *bson.Registry, b []byte, v any) error {
	dec := bson.NewDecoder(bson.NewDocumentReader(bytes.NewReader(b)))
	dec.SetRegistry(reg)
	return dec.Decode(v)
}

// TestStdUUIDWithoutRegistry records what each driver does with Go's
// uuid.UUID alone: generic binary (subtype 0) of the 16 bytes, read back,
// and the nil UUID stored like any other.
func TestStdUUIDWithoutRegistry(t *testing.T) {
	id := uuid.MustParse("0190a3c2-5b7e-7def-8a12-3456789abcde")
	none, _ := stdUUIDCodecs()
	for _, c := range none {
		t.Run(c.name, func(t *testing.T) {
			b, err := c.marshal(stdUUIDDoc{ID: id, Ptr: &id})
			require.NoError(t, err)
			for _, key := range []string{"_id", "ptr"} {
				sub, data := bson.Raw(b).Lookup(key).Binary()
				assert.EqualValues(t, 0, sub, key)
				assert.Equal(t, id[:], data, key)
			}
			var out stdUUIDDoc
			require.NoError(t, c.unmarshal(b, &out))
			assert.Equal(t, id, out.ID)
			_, err = c.marshal(stdUUIDDoc{})
			assert.NoError(t, err, "the drivers store a nil uuid.UUID")
		})
	}
}

// TestStdUUIDRegistries checks the registries' codec for uuid.UUID:
// binary subtype 4, the nil UUID refused, and subtype 4 or 0, strings and
// null read back.
func TestStdUUIDRegistries(t *testing.T) {
	id := uuid.MustParse("0190a3c2-5b7e-7def-8a12-3456789abcde")
	_, registered := stdUUIDCodecs()
	for _, c := range registered {
		t.Run(c.name, func(t *testing.T) {
			b, err := c.marshal(stdUUIDDoc{ID: id, Ptr: &id})
			require.NoError(t, err)
			for _, key := range []string{"_id", "ptr"} {
				v := bson.Raw(b).Lookup(key)
				require.Equal(t, bson.TypeBinary, v.Type, key)
				sub, data := v.Binary()
				assert.EqualValues(t, 4, sub, key)
				assert.Equal(t, id[:], data, key)
			}
			out := stdUUIDDoc{}
			require.NoError(t, c.unmarshal(b, &out))
			assert.Equal(t, stdUUIDDoc{ID: id, Ptr: &id}, out)

			b, err = c.marshal(stdUUIDDoc{ID: id})
			require.NoError(t, err)
			assert.Equal(t, bson.TypeNull, bson.Raw(b).Lookup("ptr").Type, "a nil *uuid.UUID")

			_, err = c.marshal(stdUUIDDoc{})
			assert.ErrorIs(t, err, types.ErrZeroID)

			for _, in := range []any{
				bson.Binary{Subtype: 4, Data: id[:]},
				bson.Binary{Subtype: 0, Data: id[:]}, // written with no registry
				id.String(),
			} {
				b, err := bson.Marshal(bson.M{"_id": in})
				require.NoError(t, err)
				var out stdUUIDDoc
				require.NoError(t, c.unmarshal(b, &out), "%v", in)
				assert.Equal(t, id, out.ID, "%v", in)
			}
			b, err = bson.Marshal(bson.M{"_id": nil})
			require.NoError(t, err)
			out = stdUUIDDoc{ID: id}
			require.NoError(t, c.unmarshal(b, &out))
			assert.Equal(t, uuid.Nil(), out.ID, "null")

			for _, in := range []any{
				bson.Binary{Subtype: 3, Data: id[:]},
				bson.Binary{Subtype: 4, Data: id[:15]},
				"not a uuid",
				int32(7),
			} {
				b, err := bson.Marshal(bson.M{"_id": in})
				require.NoError(t, err)
				out := stdUUIDDoc{}
				assert.ErrorIs(t, c.unmarshal(b, &out), types.ErrInvalidUUID, "%v", in)
			}
		})
	}
}

// TestFillStdUUID fills zero uuid.UUID and nil *uuid.UUID _id fields with
// version 7 UUIDs and keeps set ones.
func TestFillStdUUID(t *testing.T) {
	type ptr struct {
		ID *uuid.UUID `bson:"_id,omitempty"`
	}
	f := mongocompat.NewFiller()
	var d stdUUIDDoc
	id, filled, err := f.FillID(&d)
	require.NoError(t, err)
	require.True(t, filled)
	assert.Equal(t, d.ID, id)
	assert.IsType(t, uuid.UUID{}, id)
	assert.EqualValues(t, 7, d.ID[6]>>4)

	set := uuid.NewV4()
	d = stdUUIDDoc{ID: set}
	_, filled, err = f.FillID(&d)
	require.NoError(t, err)
	assert.False(t, filled)
	assert.Equal(t, set, d.ID)

	var p ptr
	_, filled, err = f.FillID(&p)
	require.NoError(t, err)
	require.True(t, filled)
	require.NotNil(t, p.ID)
	assert.NotEqual(t, uuid.Nil(), *p.ID)

	docs := []any{&stdUUIDDoc{}, &stdUUIDDoc{ID: set}}
	ids, err := f.FillIDs(docs)
	require.NoError(t, err)
	assert.Equal(t, []any{docs[0].(*stdUUIDDoc).ID, set}, ids)

	_, _, err = f.FillID(stdUUIDDoc{})
	assert.ErrorIs(t, err, types.ErrNotAddressable)
}

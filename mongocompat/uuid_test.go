package mongocompat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/mongocompat"
	"github.com/idkit-go/idkit/mongocompat/mongov1"
	"github.com/idkit-go/idkit/types"
)

func TestFillUUID(t *testing.T) {
	type (
		plain struct {
			ID types.UUID `bson:"_id"`
		}
		ptr struct {
			ID *types.UUID `bson:"_id,omitempty"`
		}
		null struct {
			ID types.NullUUID `bson:"_id"`
		}
	)
	f := mongocompat.NewFiller()
	p := plain{}
	id, filled, err := f.FillID(&p)
	require.NoError(t, err)
	assert.True(t, filled)
	assert.Equal(t, p.ID, id)
	assert.EqualValues(t, 7, p.ID[6]>>4)

	set := types.NewUUIDv7()
	p = plain{ID: set}
	_, filled, err = f.FillID(&p)
	require.NoError(t, err)
	assert.False(t, filled)
	assert.Equal(t, set, p.ID)

	var q ptr
	_, filled, err = f.FillID(&q)
	require.NoError(t, err)
	require.True(t, filled)
	assert.False(t, q.ID.IsZero())

	var n null
	_, filled, err = f.FillID(&n)
	require.NoError(t, err)
	assert.True(t, filled)
	assert.True(t, n.ID.Valid)
	assert.False(t, n.ID.ID.IsZero())

	_, _, err = f.FillID(plain{})
	assert.ErrorIs(t, err, types.ErrNotAddressable)
}

func TestUUIDCodecs(t *testing.T) {
	type doc struct {
		ID  types.UUID      `bson:"_id"`
		Ref types.NullUUID  `bson:"ref"`
		Ptr *types.UUID     `bson:"ptr"`
		NP  *types.NullUUID `bson:"np"`
	}
	id := types.MustParseUUID("0190a3c2-5b7e-7def-8a12-3456789abcde")
	in := doc{ID: id, Ref: types.NullUUID{ID: id, Valid: true}, Ptr: &id}
	reg1 := mongov1.Registry()
	for _, s := range []struct {
		name      string
		marshal   func(any) ([]byte, error)
		unmarshal func([]byte, any) error
	}{
		{"v2", bson.Marshal, bson.Unmarshal},
		{"v1/mongov1.Registry", func(v any) ([]byte, error) { return marshalV1(reg1, v) },
			func(b []byte, v any) error { return unmarshalV1(reg1, b, v) }},
	} {
		t.Run(s.name, func(t *testing.T) {
			b, err := s.marshal(in)
			require.NoError(t, err)
			raw := bson.Raw(b)
			for _, key := range []string{"_id", "ref", "ptr"} {
				v := raw.Lookup(key)
				require.Equal(t, bson.TypeBinary, v.Type, key)
				sub, data := v.Binary()
				assert.EqualValues(t, 4, sub, key)
				assert.Equal(t, id[:], data, key)
			}
			assert.Equal(t, bson.TypeNull, raw.Lookup("np").Type)
			out := doc{Ref: types.NullUUID{ID: id, Valid: true}}
			require.NoError(t, s.unmarshal(b, &out))
			assert.Equal(t, in, out)

			_, err = s.marshal(doc{})
			assert.ErrorIs(t, err, types.ErrZeroID)
			_, err = s.marshal(doc{ID: id, Ref: types.NullUUID{Valid: true}})
			assert.ErrorIs(t, err, types.ErrZeroID)

			// Legacy subtype 3 and other types are refused, leaving the field.
			bad, err := bson.Marshal(bson.M{"_id": bson.Binary{Subtype: 3, Data: id[:]}})
			require.NoError(t, err)
			out = doc{}
			assert.ErrorIs(t, s.unmarshal(bad, &out), types.ErrInvalidUUID)
			assert.True(t, out.ID.IsZero())
		})
	}
}

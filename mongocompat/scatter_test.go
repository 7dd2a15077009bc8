package mongocompat_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/idkit-go/idkit/types"
)

// TestCodecsStoreScatterKeys: keys in a scatter form are IDs of the same
// types, so every codec setup stores them as it stores ordered IDs (an
// ObjectID, an int64, a binary UUID) and reads back the same key, which
// turns back into the ID.
func TestCodecsStoreScatterKeys(t *testing.T) {
	type keyDoc struct {
		ID types.ObjectID  `bson:"_id"`
		S  types.Snowflake `bson:"s"`
		U  types.UUID      `bson:"u"`
	}
	sid := types.Snowflake(1946618112823218176)
	uid := types.MustParseUUID("019a4c1e-2f00-7abc-9def-0123456789ab")
	oidKey, err := types.ShardBits(8).ObjectID(testID)
	require.NoError(t, err)
	sKey, err := types.BitReversed().Snowflake(sid)
	require.NoError(t, err)
	uKey, err := types.ShardBits(8).UUID(uid)
	require.NoError(t, err)
	in := keyDoc{ID: oidKey, S: sKey, U: uKey}
	for _, s := range setups() {
		t.Run(s.name, func(t *testing.T) {
			data, err := s.marshal(in)
			require.NoError(t, err)
			raw := bson.Raw(data)
			require.Equal(t, bson.TypeObjectID, raw.Lookup("_id").Type)
			require.Equal(t, [12]byte(oidKey), [12]byte(raw.Lookup("_id").ObjectID()))
			require.Equal(t, bson.TypeInt64, raw.Lookup("s").Type)
			require.Equal(t, int64(sKey), raw.Lookup("s").Int64())
			require.Equal(t, bson.TypeBinary, raw.Lookup("u").Type)
			var out keyDoc
			require.NoError(t, s.unmarshal(data, &out))
			require.Equal(t, in, out)
			back, err := types.ShardBits(8).OrderedObjectID(out.ID)
			require.NoError(t, err)
			require.Equal(t, testID, back)
			sBack, err := types.BitReversed().OrderedSnowflake(out.S)
			require.NoError(t, err)
			require.Equal(t, sid, sBack)
			uBack, err := types.ShardBits(8).OrderedUUID(out.U)
			require.NoError(t, err)
			require.Equal(t, uid, uBack)
		})
	}
}

package pgxtypes_test

import (
	"context"
	"testing"

	"github.com/idkit-go/idkit/internal/testdb"
	"github.com/idkit-go/idkit/types"
)

// TestScatterKeys stores keys in a scatter form through pgx with the codecs
// registered, in every query execution mode, and checks the stored values
// with SQL: the same bytea, bigint and uuid values as ordered IDs of the
// same types, read back as the same keys.
func TestScatterKeys(t *testing.T) {
	oid := types.MustParseObjectID("6592008029c8c3e4dc76256c")
	oKey, _ := types.ShardBits(8).ObjectID(oid)
	sKey, _ := types.ShardBits(4).Snowflake(1946618112823218176)
	uKey, _ := types.ShardBits(8).UUID(types.MustParseUUID("019a4c1e-2f00-7abc-9def-0123456789ab"))
	for _, mode := range execModes {
		t.Run(mode.String(), func(t *testing.T) {
			conn := connect(t, mode, true)
			ctx := context.Background()
			table := testdb.Name("idkit_pgx_scatter")
			if _, err := conn.Exec(ctx, `CREATE TABLE `+table+` (id bytea PRIMARY KEY, sid bigint NOT NULL, u uuid NOT NULL)`); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Exec(context.Background(), "DROP TABLE IF EXISTS "+table) })
			if _, err := conn.Exec(ctx, `INSERT INTO `+table+` VALUES ($1, $2, $3)`, oKey, sKey, uKey); err != nil {
				t.Fatal(err)
			}
			var hexID, sid, u string
			if err := conn.QueryRow(ctx, `SELECT encode(id, 'hex'), sid::text, u::text FROM `+table).Scan(&hexID, &sid, &u); err != nil {
				t.Fatal(err)
			}
			if hexID != oKey.Hex() || sid != sKey.String() || u != uKey.String() {
				t.Fatalf("stored %s %s %s; want %s %s %s", hexID, sid, u, oKey.Hex(), sKey, uKey)
			}
			var o types.ObjectID
			var s types.Snowflake
			var uu types.UUID
			if err := conn.QueryRow(ctx, `SELECT id, sid, u FROM `+table+` WHERE id = $1`, oKey).Scan(&o, &s, &uu); err != nil {
				t.Fatal(err)
			}
			if o != oKey || s != sKey || uu != uKey {
				t.Fatalf("read %s %s %s; want %s %s %s", o, s, uu, oKey, sKey, uKey)
			}
		})
	}
}

package sqltypes_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/idkit-go/idkit/sqltypes"
	"github.com/idkit-go/idkit/types"
)

// NullHexObjectID keeps NullObjectID's NULL rules (one implementation,
// internal/nullable): every JSON and SQL input gives the same validity, ID
// and error, and an error leaves the value unchanged.
func TestNullHexObjectIDFollowsNullObjectID(t *testing.T) {
	id := types.MustParseObjectID(hexID)
	start := func() (sqltypes.NullHexObjectID, types.NullObjectID) {
		return sqltypes.NullHexObjectID{ID: sqltypes.HexObjectID(id), Valid: true}, types.NullObjectID{ID: id, Valid: true}
	}
	for _, in := range []string{`null`, ` "" `, `"` + hexID + `"`, `{"$oid":"` + hexID + `"}`,
		`"000000000000000000000000"`, `"nothex"`, `12`, `true`} {
		h, o := start()
		herr, oerr := json.Unmarshal([]byte(in), &h), json.Unmarshal([]byte(in), &o)
		assert.Equal(t, oerr == nil, herr == nil, "JSON %s: errors %v and %v", in, herr, oerr)
		assert.Equal(t, o.Valid, h.Valid, "JSON %s", in)
		assert.Equal(t, o.ID, types.ObjectID(h.ID), "JSON %s", in)
	}
	for _, src := range []any{nil, hexID, []byte(hexID), id[:], int64(5), "short"} {
		h, o := start()
		herr, oerr := h.Scan(src), o.Scan(src)
		assert.Equal(t, oerr == nil, herr == nil, "Scan %#v: errors %v and %v", src, herr, oerr)
		assert.Equal(t, o.Valid, h.Valid, "Scan %#v", src)
		assert.Equal(t, o.ID, types.ObjectID(h.ID), "Scan %#v", src)
	}
	for _, n := range []sqltypes.NullHexObjectID{{}, {ID: sqltypes.HexObjectID(id), Valid: true}} {
		b, err := json.Marshal(n)
		assert.NoError(t, err)
		ob, _ := json.Marshal(types.NullObjectID{ID: types.ObjectID(n.ID), Valid: n.Valid})
		assert.Equal(t, string(ob), string(b))
	}
}

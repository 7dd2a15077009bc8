//go:build go1.27

package publicid_test

import (
	"testing"
	"uuid"

	"github.com/idkit-go/idkit/publicid"
	"github.com/idkit-go/idkit/types"
)

// TestStdUUID checks Go's uuid.UUID through its conversion to types.UUID,
// in both forms.
func TestStdUUID(t *testing.T) {
	users := mustNew[types.UUID](t, "user", key1)
	for range 100 {
		u := uuid.NewV7()
		s := mustEncode(t, users, types.UUID(u))
		back, err := users.Decode(s)
		if err != nil || uuid.UUID(back) != u {
			t.Fatalf("%v: Decode(%q) = %v, %v", u, s, back, err)
		}
		back, err = publicid.DecodeTypeID(users, mustTypeID(t, users, types.UUID(u)))
		if err != nil || uuid.UUID(back) != u {
			t.Fatalf("%v as a TypeID: %v, %v", u, back, err)
		}
	}
}

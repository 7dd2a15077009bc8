package publicid_test

import (
	"testing"

	"github.com/idkit-go/idkit/publicid"
	"github.com/idkit-go/idkit/types"
)

// Test keys: key 1 and key 2 are secrets of 32 known bytes; never use such
// keys outside tests.
const (
	key1 = "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
	key2 = "2:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8"
	key3 = "3:QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl8"
)

func mustNew[T interface {
	types.Snowflake | types.ObjectID | types.UUID
}](t testing.TB, prefix, keys string) *publicid.Codec[T] {
	t.Helper()
	c, err := publicid.New[T](prefix, keys)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

package publicid_test

import (
	"database/sql/driver"
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

// mustEncode returns c.Encode(id), failing the test on an error.
func mustEncode[T interface {
	types.Snowflake | types.ObjectID | types.UUID
}](t testing.TB, c *publicid.Codec[T], id T) string {
	t.Helper()
	s, err := c.Encode(id)
	if err != nil {
		t.Fatalf("Encode(%v): %v", id, err)
	}
	return s
}

// valueErr returns the error of id's Value: nil for an ID a database
// column holds, an error for a zero ID or a negative Snowflake.
func valueErr[T interface {
	types.Snowflake | types.ObjectID | types.UUID
}](id T) error {
	_, err := any(id).(driver.Valuer).Value()
	return err
}

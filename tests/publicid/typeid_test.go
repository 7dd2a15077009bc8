package publicid_test

import (
	"crypto/rand"
	"testing"

	"go.jetify.com/typeid"

	"github.com/idkit-go/idkit/publicid"
	"github.com/idkit-go/idkit/types"
)

const ring = "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

// TestJetifyParsesOurs checks that go.jetify.com/typeid parses every TypeID
// publicid writes, with its prefix.
func TestJetifyParsesOurs(t *testing.T) {
	for _, prefix := range []string{"", "user", "order_item", "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk"} {
		c, err := publicid.New[types.UUID](prefix, ring)
		if err != nil {
			t.Fatal(err)
		}
		for range 1000 {
			var id types.UUID
			rand.Read(id[:])
			s := publicid.EncodeTypeID(c, id)
			tid, err := typeid.FromString(s)
			if err != nil {
				t.Fatalf("typeid.FromString(%q): %v", s, err)
			}
			if tid.Prefix() != prefix || tid.String() != s {
				t.Fatalf("typeid reads %q as prefix %q, %q", s, tid.Prefix(), tid.String())
			}
		}
	}
}

// TestWeParseJetify checks that publicid decodes every TypeID that
// go.jetify.com/typeid makes, and writes it back unchanged.
func TestWeParseJetify(t *testing.T) {
	c, err := publicid.New[types.UUID]("user", ring)
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		tid, err := typeid.WithPrefix("user")
		if err != nil {
			t.Fatal(err)
		}
		id, err := publicid.DecodeTypeID(c, tid.String())
		if err != nil {
			t.Fatalf("DecodeTypeID(%q): %v", tid, err)
		}
		if back := publicid.EncodeTypeID(c, id); back != tid.String() {
			t.Fatalf("%q decodes and encodes to %q", tid, back)
		}
	}
	other, _ := typeid.WithPrefix("order")
	if _, err := publicid.DecodeTypeID(c, other.String()); err == nil {
		t.Errorf("a user codec decodes %q", other)
	}
}

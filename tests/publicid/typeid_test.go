package publicid_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"strconv"
	"strings"
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
		for i := range 1000 {
			var id types.UUID
			rand.Read(id[:])
			id[6] = byte(1+i%8)<<4 | id[6]&0x0f // versions 1 to 8, as EncodeTypeID takes
			id[8] = 0x80 | id[8]&0x3f
			s, err := publicid.EncodeTypeID(c, id)
			if err != nil {
				t.Fatalf("EncodeTypeID(%v): %v", id, err)
			}
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

// ringFrom returns a ring of the 8 keys a TypeID can name, digits 0-7,
// the first being digit first.
func ringFrom(first int) string {
	var entries []string
	for i := range 8 {
		d := (first + i) % 8
		entries = append(entries, strconv.Itoa(d)+":"+base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{byte(d + 1)}, 32)))
	}
	return strings.Join(entries, ",")
}

// TestWeParseJetify checks that publicid decodes every TypeID that
// go.jetify.com/typeid makes with a ring that holds the key its first
// digit names, and writes it back unchanged with that key.
func TestWeParseJetify(t *testing.T) {
	var codecs [8]*publicid.Codec[types.UUID]
	for d := range codecs {
		c, err := publicid.New[types.UUID]("user", ringFrom(d))
		if err != nil {
			t.Fatal(err)
		}
		codecs[d] = c
	}
	c := codecs[0]
	check := func(tid typeid.AnyID) {
		t.Helper()
		id, err := publicid.DecodeTypeID(c, tid.String())
		if err != nil {
			t.Fatalf("DecodeTypeID(%q): %v", tid, err)
		}
		d := tid.Suffix()[0] - '0'
		if back, err := publicid.EncodeTypeID(codecs[d], id); err != nil || back != tid.String() {
			t.Fatalf("%q decodes and encodes to %q, %v", tid, back, err)
		}
	}
	for range 1000 {
		tid, err := typeid.WithPrefix("user")
		if err != nil {
			t.Fatal(err)
		}
		check(tid)
	}
	// Every first digit: TypeIDs of random UUIDs.
	for i := range 1000 {
		var u [16]byte
		rand.Read(u[:])
		u[0] = byte(i%8)<<5 | u[0]&0x1f
		tid, err := typeid.FromUUIDBytesWithPrefix("user", u[:])
		if err != nil {
			t.Fatal(err)
		}
		check(tid)
	}
	other, _ := typeid.WithPrefix("order")
	if _, err := publicid.DecodeTypeID(c, other.String()); err == nil {
		t.Errorf("a user codec decodes %q", other)
	}
}

package types_test

import (
	"encoding/hex"
	"testing"

	"github.com/idkit-go/idkit/types"
)

// The hex encoder works on eight digits per machine word; it must write
// exactly what encoding/hex writes, for every byte value in every position.
func TestHexMatchesEncodingHex(t *testing.T) {
	for b := range 256 {
		for pos := range 12 {
			var id types.ObjectID
			for i := range id {
				id[i] = byte(b + 37*i)
			}
			id[pos] = byte(b)
			want := hex.EncodeToString(id[:])
			if got := id.Hex(); got != want {
				t.Fatalf("%x: Hex() = %s, want %s", id[:], got, want)
			}
			text, err := id.MarshalText()
			if err != nil || string(text) != want {
				t.Fatalf("%x: MarshalText = %q, %v", id[:], text, err)
			}
		}
	}
}

func FuzzHexMatchesEncodingHex(f *testing.F) {
	f.Add(make([]byte, 12))
	f.Add([]byte{0xff, 0xfe, 0x0a, 0x90, 0x09, 0xa0, 0x00, 0x01, 0x10, 0x99, 0xaa, 0x5f})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) != 12 {
			return
		}
		id := types.ObjectID(in)
		if got, want := id.Hex(), hex.EncodeToString(in); got != want {
			t.Fatalf("%x: Hex() = %s, want %s", in, got, want)
		}
	})
}

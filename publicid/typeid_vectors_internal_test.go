package publicid

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math/bits"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/types"
)

// vector is one entry of the TypeID specification's test files.
type vector struct{ name, typeid, prefix, uuid string }

var yamlField = regexp.MustCompile(`^\s*-?\s*(name|typeid|prefix|uuid):\s*"?(.*?)"?\s*$`)

// readVectors reads testdata/typeid/<file>: a YAML list of flat string
// maps, of which this reads only what the files use (comments skipped).
func readVectors(t *testing.T, file string) []vector {
	t.Helper()
	b, err := os.ReadFile("testdata/typeid/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var out []vector
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		m := yamlField.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if m[1] == "name" {
			out = append(out, vector{})
		}
		v := &out[len(out)-1]
		switch m[1] {
		case "name":
			v.name = m[2]
		case "typeid":
			v.typeid = m[2]
		case "prefix":
			v.prefix = m[2]
		case "uuid":
			v.uuid = m[2]
		}
	}
	return out
}

const testKey = "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

// fullRing returns a ring of the 8 keys a TypeID can name, digits 0-7,
// the first being digit first; key d's secret is 32 bytes of value d+1.
func fullRing(first int) string {
	var entries []string
	for i := range typeIDKeys {
		d := (first + i) % typeIDKeys
		entries = append(entries, string(alphabet[d])+":"+base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{byte(d + 1)}, secretLen)))
	}
	return strings.Join(entries, ",")
}

// TestTypeIDValidVectors checks every valid.yml vector. The text layer
// reads the vector's prefix and 128 bits. With a ring holding all 8 keys
// a TypeID can name, every vector decodes (every valid TypeID is the form
// of some UUID under the key its first digit names) to a UUID of version
// 1 to 8 that encodes back to the vector; the vector's bits are the key's
// digit and FF1 of the UUID's 125 packed bits under that key.
func TestTypeIDValidVectors(t *testing.T) {
	vectors := readVectors(t, "valid.yml")
	if len(vectors) < 9 {
		t.Fatalf("read %d valid vectors", len(vectors))
	}
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			want, err := types.ParseUUID(v.uuid)
			if err != nil {
				t.Fatal(err)
			}
			c, err := New[types.UUID](v.prefix, fullRing(0))
			if err != nil {
				t.Fatalf("New(%q): %v", v.prefix, err)
			}
			body, err := c.cutPrefix(v.typeid)
			if err != nil {
				t.Fatal(err)
			}
			hi, lo, top, ok := decodeBase32(body)
			if !ok || binary.BigEndian.Uint64(want[:8]) != hi || binary.BigEndian.Uint64(want[8:]) != lo {
				t.Fatalf("the suffix reads as %016x%016x, want %x", hi, lo, want)
			}
			if got := string(appendBase32([]byte(c.prefix), hi, lo, 26)); got != v.typeid {
				t.Fatalf("the UUID writes as %q", got)
			}
			u, err := DecodeTypeID(c, v.typeid)
			if err != nil {
				t.Fatalf("DecodeTypeID: %v", err)
			}
			if ver := u[6] >> 4; ver < 1 || ver > 8 || u[8]>>6 != 2 {
				t.Fatalf("decodes to %v: version %d, variant bits %b", u, ver, u[8]>>6)
			}
			// Re-encoded by a codec whose first key is the one the vector names.
			enc, err := New[types.UUID](v.prefix, fullRing(int(top)))
			if err != nil {
				t.Fatal(err)
			}
			if back, err := EncodeTypeID(enc, u); err != nil || back != v.typeid {
				t.Fatalf("EncodeTypeID(DecodeTypeID(%q)) = %q, %v", v.typeid, back, err)
			}
			// The construction: the top 3 bits name the key, the other 125
			// are FF1 of the packed UUID.
			if hi>>61 != uint64(top) {
				t.Fatalf("top 3 bits %d, first digit %d", hi>>61, top)
			}
			ph, pl, ok := packTypeID(u)
			if eh, el := c.byID[top].tid.Encrypt(ph, pl); !ok || eh != hi&(1<<61-1) || el != lo {
				t.Fatalf("the TypeID carries %016x%016x, not FF1 of the packed UUID", hi, lo)
			}
			// A ring of key 1 alone decodes the vectors of key 1 and no other.
			one, err := New[types.UUID](v.prefix, testKey)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeTypeID(one, v.typeid)
			if top == 1 && err != nil || top != 1 && !errors.Is(err, ErrUnknownKey) {
				t.Fatalf("a ring of key 1: DecodeTypeID(%q) = %v, %v", v.typeid, got, err)
			}
		})
	}
}

// TestTypeIDInvalidVectors checks that no codec decodes an invalid.yml
// vector, whatever its prefix, even with all 8 keys, and that New refuses
// the invalid prefixes.
func TestTypeIDInvalidVectors(t *testing.T) {
	vectors := readVectors(t, "invalid.yml")
	if len(vectors) < 20 {
		t.Fatalf("read %d invalid vectors", len(vectors))
	}
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			prefixes := []string{"", "prefix"}
			if i := strings.LastIndexByte(v.typeid, '_'); i >= 0 {
				prefixes = append(prefixes, v.typeid[:i])
			}
			for _, p := range prefixes {
				c, err := New[types.UUID](p, fullRing(0))
				if err != nil {
					if !errors.Is(err, ErrInvalidConfig) {
						t.Errorf("New(%q): %v", p, err)
					}
					continue
				}
				if u, err := DecodeTypeID(c, v.typeid); !errors.Is(err, ErrInvalid) {
					t.Errorf("codec %q: DecodeTypeID(%q) = %v, %v; want ErrInvalid", p, v.typeid, u, err)
				}
			}
		})
	}
}

// TestPackTypeID checks that packing keeps every bit but the fixed ones:
// each of the 125 bits moves exactly one bit of the UUID, and unpacking
// restores the UUID.
func TestPackTypeID(t *testing.T) {
	for v := byte(1); v <= 8; v++ {
		var id types.UUID
		id[6], id[8] = v<<4, 0x80
		base := id
		for bit := range 128 {
			if bit >= 48 && bit < 52 || bit == 64 || bit == 65 {
				continue // version and variant
			}
			id = base
			id[bit/8] ^= 0x80 >> (bit % 8)
			hi, lo, ok := packTypeID(id)
			bh, bl, _ := packTypeID(base)
			if !ok || hi>>61 != 0 || bits.OnesCount64(hi^bh)+bits.OnesCount64(lo^bl) != 1 {
				t.Fatalf("version %d, bit %d: packs to %016x%016x from %016x%016x", v, bit, hi, lo, bh, bl)
			}
			if back := unpackTypeID(hi, lo); back != id {
				t.Fatalf("version %d, bit %d: %v unpacks to %v", v, bit, id, back)
			}
		}
		if hi, _, _ := packTypeID(base); hi>>58 != uint64(v-1) {
			t.Fatalf("version %d packs to %d", v, hi>>58)
		}
	}
	for _, s := range []string{"00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
		"0190a3c2-5b7e-0def-8a12-3456789abcde", "0190a3c2-5b7e-9def-8a12-3456789abcde", "0190a3c2-5b7e-fdef-8a12-3456789abcde",
		"0190a3c2-5b7e-7def-0a12-3456789abcde", "0190a3c2-5b7e-7def-ca12-3456789abcde", "0190a3c2-5b7e-7def-ea12-3456789abcde"} {
		if _, _, ok := packTypeID(types.MustParseUUID(s)); ok {
			t.Errorf("%s packs", s)
		}
	}
}

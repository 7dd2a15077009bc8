package publicid

import (
	"encoding/binary"
	"errors"
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

// TestTypeIDValidVectors checks every valid.yml vector: the text layer reads
// the vector's prefix and 128 bits, and a codec with that prefix decodes
// it to a UUID that encodes back to the same TypeID.
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
			c, err := New[types.UUID](v.prefix, testKey)
			if err != nil {
				t.Fatalf("New(%q): %v", v.prefix, err)
			}
			body, err := c.cutPrefix(v.typeid)
			if err != nil {
				t.Fatal(err)
			}
			hi, lo, _, ok := decodeBase32(body)
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
			if back := EncodeTypeID(c, u); back != v.typeid {
				t.Fatalf("EncodeTypeID(DecodeTypeID(%q)) = %q", v.typeid, back)
			}
			// The encrypted UUID is the vector's: AES-256 with the codec's key.
			var enc types.UUID
			c.enc.block.Encrypt(enc[:], u[:])
			if enc != want {
				t.Fatalf("the TypeID carries %x, want %x", enc, want)
			}
		})
	}
}

// TestTypeIDInvalidVectors checks that no codec decodes an invalid.yml
// vector, whatever its prefix, and that New refuses the invalid prefixes.
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
				c, err := New[types.UUID](p, testKey)
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

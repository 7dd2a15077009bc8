package publicid_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/publicid"
	"github.com/idkit-go/idkit/types"
)

// hasTypeIDForm reports whether id is an RFC 9562 UUID of version 1 to 8,
// the UUIDs EncodeTypeID encodes.
func hasTypeIDForm(id types.UUID) bool {
	v := id[6] >> 4
	return v >= 1 && v <= 8 && id[8]>>6 == 2
}

// randomVersioned returns a random UUID of version v and variant bits 10,
// as PostgreSQL's gen_random_uuid makes for v = 4.
func randomVersioned(r *rand.Rand, v byte) types.UUID {
	id := randomUUID(r)
	id[6] = v<<4 | id[6]&0x0f
	id[8] = 0x80 | id[8]&0x3f
	return id
}

func mustTypeID(t testing.TB, c *publicid.Codec[types.UUID], id types.UUID) string {
	t.Helper()
	s, err := publicid.EncodeTypeID(c, id)
	if err != nil {
		t.Fatalf("EncodeTypeID(%v): %v", id, err)
	}
	return s
}

// TestTypeIDRotation follows docs/publicid.md's rotation steps with two
// and with three keys: 100,000 version 7 UUIDs (types.NewUUIDv7) and
// 100,000 version 4 UUIDs made under each key of the ring, each key first
// in its own ring in turn, all decode under the ring that holds every key,
// to exactly their UUID. After the older keys retire, the newest key's
// TypeIDs still decode and the retired keys' are refused with
// ErrUnknownKey. Under the race detector, which finds nothing in these
// single-goroutine loops, it takes 10,000 of each.
func TestTypeIDRotation(t *testing.T) {
	n := 100_000
	if raceEnabled {
		n = 10_000
	}
	for _, keys := range [][]string{{key1, key2}, {key1, key2, key3}} {
		t.Run(strings.Repeat("k", len(keys)), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(keys)), 42))
			// The ring during the rotation: the newest key first.
			var during []string
			for i := len(keys) - 1; i >= 0; i-- {
				during = append(during, keys[i])
			}
			dec := mustNew[types.UUID](t, "user", strings.Join(during, ","))
			after := mustNew[types.UUID](t, "user", keys[len(keys)-1])
			for i, k := range keys {
				// Key k encodes: first in a ring of the keys up to it (old
				// keys still in the ring, as in step 3).
				ring := []string{k}
				for j := i - 1; j >= 0; j-- {
					ring = append(ring, keys[j])
				}
				enc := mustNew[types.UUID](t, "user", strings.Join(ring, " "))
				refused, wrong, retired := 0, 0, 0
				for m := range 2 * n {
					id := types.NewUUIDv7()
					if m%2 == 1 {
						id = randomVersioned(r, 4)
					}
					s := mustTypeID(t, enc, id)
					if s[len("user_")] != k[0] {
						t.Fatalf("%q does not start with its key's digit %c", s, k[0])
					}
					got, err := publicid.DecodeTypeID(dec, s)
					switch {
					case err != nil:
						refused++
					case got != id:
						wrong++
					}
					if m%100 == 0 { // a sample, after the older keys retire
						got, err := publicid.DecodeTypeID(after, s)
						switch {
						case i == len(keys)-1 && (err != nil || got != id):
							t.Fatalf("the newest key alone: DecodeTypeID(%q) = %v, %v; want %v", s, got, err, id)
						case i < len(keys)-1 && !(errors.Is(err, publicid.ErrUnknownKey) && errors.Is(err, publicid.ErrInvalid)):
							t.Fatalf("key %c retired: DecodeTypeID(%q): %v, want ErrUnknownKey", k[0], s, err)
						case i < len(keys)-1:
							retired++
						}
					}
				}
				if refused != 0 || wrong != 0 {
					t.Errorf("key %c: of %d TypeIDs (v7 and v4), %d refused and %d decoded to another UUID", k[0], 2*n, refused, wrong)
				}
				t.Logf("key %c: %d v7 and %d v4 UUIDs: 0 refused, 0 wrong; %d refused after retirement", k[0], n, n, retired)
			}
		})
	}
}

// TestTypeIDEveryVersion checks every version EncodeTypeID takes, under
// every key of a ring of three, decoded by the ring in another order.
func TestTypeIDEveryVersion(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	dec := mustNew[types.UUID](t, "", key1+","+key2+","+key3)
	for _, first := range []string{key1, key2, key3} {
		enc := mustNew[types.UUID](t, "", first)
		for v := byte(1); v <= 8; v++ {
			for range 1000 {
				id := randomVersioned(r, v)
				s := mustTypeID(t, enc, id)
				if got, err := publicid.DecodeTypeID(dec, s); err != nil || got != id {
					t.Fatalf("version %d, key %c: DecodeTypeID(%q) = %v, %v; want %v", v, first[0], s, got, err, id)
				}
			}
		}
	}
}

// TestTypeIDKeys checks the keys a TypeID can name: digits 0-7. A ring
// whose first key has another digit cannot encode TypeIDs; its keys 0-7
// still decode theirs; a digit the ring does not hold is ErrUnknownKey.
func TestTypeIDKeys(t *testing.T) {
	id := types.MustParseUUID("0190a3c2-5b7e-7def-8a12-3456789abcde")
	secret := strings.TrimPrefix(key1, "1:")
	for _, d := range "01234567" {
		c := mustNew[types.UUID](t, "user", string(d)+":"+secret)
		s := mustTypeID(t, c, id)
		if s[5] != byte(d) {
			t.Errorf("key %c writes %q", d, s)
		}
		if got, err := publicid.DecodeTypeID(c, s); err != nil || got != id {
			t.Errorf("key %c: DecodeTypeID(%q) = %v, %v", d, s, got, err)
		}
	}
	for _, d := range "89az" {
		c := mustNew[types.UUID](t, "user", string(d)+":"+secret+","+key2)
		if s, err := publicid.EncodeTypeID(c, id); !errors.Is(err, publicid.ErrInvalidConfig) || s != "" || strings.Contains(err.Error(), secret[:20]) {
			t.Errorf("first key %c: EncodeTypeID = %q, %v; want ErrInvalidConfig", d, s, err)
		}
		if mustEncode(t, c, id) == "" {
			t.Errorf("first key %c: Encode fails", d)
		}
		old := mustTypeID(t, mustNew[types.UUID](t, "user", key2), id)
		if got, err := publicid.DecodeTypeID(c, old); err != nil || got != id {
			t.Errorf("first key %c: key 2's TypeID: %v, %v", d, got, err)
		}
	}
	c := mustNew[types.UUID](t, "user", key1+","+key2)
	s := mustTypeID(t, c, id)
	for _, d := range "034567" {
		if got, err := publicid.DecodeTypeID(c, "user_"+string(d)+s[6:]); !errors.Is(err, publicid.ErrUnknownKey) || !errors.Is(err, publicid.ErrInvalid) || got != (types.UUID{}) {
			t.Errorf("digit %c: %v, %v; want ErrUnknownKey", d, got, err)
		}
	}
	for _, d := range "89z" {
		if _, err := publicid.DecodeTypeID(c, "user_"+string(d)+s[6:]); !errors.Is(err, publicid.ErrNonCanonical) {
			t.Errorf("digit %c: %v; want ErrNonCanonical", d, err)
		}
	}
}

// TestTypeIDUnsupported checks the UUIDs without a TypeID form.
func TestTypeIDUnsupported(t *testing.T) {
	c := mustNew[types.UUID](t, "user", key1)
	for _, u := range []string{
		"00000000-0000-0000-0000-000000000000", // nil
		"ffffffff-ffff-ffff-ffff-ffffffffffff", // max
		"0190a3c2-5b7e-0def-8a12-3456789abcde", // version 0
		"0190a3c2-5b7e-9def-8a12-3456789abcde", // version 9
		"0190a3c2-5b7e-7def-0a12-3456789abcde", // NCS variant
		"0190a3c2-5b7e-7def-ca12-3456789abcde", // Microsoft variant
		"0190a3c2-5b7e-7def-ea12-3456789abcde", // reserved variant
	} {
		s, err := publicid.EncodeTypeID(c, types.MustParseUUID(u))
		if !errors.Is(err, publicid.ErrUnsupportedUUID) || errors.Is(err, publicid.ErrInvalid) || s != "" {
			t.Errorf("EncodeTypeID(%s) = %q, %v; want ErrUnsupportedUUID", u, s, err)
		}
	}
}

// TestKeyedFormsRotation checks that the keyed forms, which always carried
// their key's digit, decode exactly during a rotation for every ID type:
// 10,000 IDs of each (UUIDs of versions 7 and 4) made under each of two
// keys, decoded by the ring of both.
func TestKeyedFormsRotation(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	ring := key2 + "," + key1
	sfDec, oidDec, uDec := mustNew[types.Snowflake](t, "", ring), mustNew[types.ObjectID](t, "", ring), mustNew[types.UUID](t, "", ring)
	for _, k := range []string{key1, key2} {
		sf, oid, u := mustNew[types.Snowflake](t, "", k), mustNew[types.ObjectID](t, "", k), mustNew[types.UUID](t, "", k)
		for i := range 10_000 {
			s := types.Snowflake(r.Int64())
			if got, err := sfDec.Decode(mustEncode(t, sf, s)); err != nil || got != s {
				t.Fatalf("key %c: Snowflake %d: %v, %v", k[0], s, got, err)
			}
			o := randomObjectID(r)
			if got, err := oidDec.Decode(mustEncode(t, oid, o)); err != nil || got != o {
				t.Fatalf("key %c: ObjectID %v: %v, %v", k[0], o, got, err)
			}
			id := types.NewUUIDv7()
			if i%2 == 1 {
				id = randomVersioned(r, 4)
			}
			if got, err := uDec.Decode(mustEncode(t, u, id)); err != nil || got != id {
				t.Fatalf("key %c: UUID %v: %v, %v", k[0], id, got, err)
			}
		}
	}
}

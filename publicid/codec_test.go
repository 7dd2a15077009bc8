package publicid_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/publicid"
	"github.com/idkit-go/idkit/types"
)

func randomObjectID(r *rand.Rand) (id types.ObjectID) {
	for i := range id {
		id[i] = byte(r.Uint32())
	}
	return id
}

func randomUUID(r *rand.Rand) (id types.UUID) {
	for i := range id {
		id[i] = byte(r.Uint32())
	}
	return id
}

// roundTrip checks Decode(Encode(id)) == id and the form of the public ID
// for every valid id, and that Encode refuses the others with the error
// Value gives them.
func roundTrip[T interface {
	types.Snowflake | types.ObjectID | types.UUID
}](t *testing.T, c *publicid.Codec[T], form *regexp.Regexp, ids []T) {
	t.Helper()
	for _, id := range ids {
		if verr := valueErr(id); verr != nil {
			s, err := c.Encode(id)
			if s != "" || !errors.Is(err, types.ErrZeroID) && !errors.Is(err, types.ErrInvalidSnowflake) {
				t.Fatalf("Encode(%v) = %q, %v; want ErrZeroID or ErrInvalidSnowflake", id, s, err)
			}
			if b, err := c.AppendEncode([]byte("x"), id); string(b) != "x" || err == nil {
				t.Fatalf("AppendEncode(%v) = %q, %v; want x and an error", id, b, err)
			}
			continue
		}
		s := mustEncode(t, c, id)
		if !form.MatchString(s) {
			t.Fatalf("Encode(%v) = %q, not of the form %s", id, s, form)
		}
		if got, err := c.AppendEncode([]byte("x"), id); err != nil || string(got) != "x"+s {
			t.Fatalf("AppendEncode gives %q, %v, Encode %q", got, err, s)
		}
		back, err := c.Decode(s)
		if err != nil || back != id {
			t.Fatalf("Decode(Encode(%v)) = %v, %v", id, back, err)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	sfs := []types.Snowflake{0, 1, 2, math.MaxInt64, math.MaxInt64 - 1, -1, math.MinInt64, 1541815603606036480}
	oids := []types.ObjectID{{}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, types.MustParseObjectID("632c6d93d65f74baeb22a2c9"), {11: 1}, {0: 0x80}}
	uuids := []types.UUID{{}, {0: 0xff, 15: 0xff}, types.MustParseUUID("ffffffff-ffff-ffff-ffff-ffffffffffff"), types.NewUUIDv7()}
	for range 2000 {
		sfs = append(sfs, types.Snowflake(r.Uint64()), types.Snowflake(r.Uint64()>>r.IntN(64)))
		oids = append(oids, randomObjectID(r))
		uuids = append(uuids, randomUUID(r), randomVersioned(r, byte(1+r.IntN(8))))
	}
	for _, prefix := range []string{"", "user", "a", "order_item", strings.Repeat("z", 63)} {
		p := ""
		if prefix != "" {
			p = prefix + "_"
		}
		t.Run("prefix="+prefix, func(t *testing.T) {
			roundTrip(t, mustNew[types.Snowflake](t, prefix, key1), regexp.MustCompile(`^`+p+`1[0-9a-f][0-9a-hjkmnp-tv-z]{12}$`), sfs)
			roundTrip(t, mustNew[types.ObjectID](t, prefix, key1+" "+key2), regexp.MustCompile(`^`+p+`1[01][0-9a-hjkmnp-tv-z]{19}$`), oids)
			roundTrip(t, mustNew[types.UUID](t, prefix, key1), regexp.MustCompile(`^`+p+`1[0-7][0-9a-hjkmnp-tv-z]{25}$`), uuids)
			tc := mustNew[types.UUID](t, prefix, key1)
			tform := regexp.MustCompile(`^` + p + `1[0-9a-hjkmnp-tv-z]{25}$`)
			for _, id := range uuids {
				s, err := publicid.EncodeTypeID(tc, id)
				if !hasTypeIDForm(id) {
					if !errors.Is(err, publicid.ErrUnsupportedUUID) || s != "" {
						t.Fatalf("EncodeTypeID(%v) = %q, %v; want ErrUnsupportedUUID", id, s, err)
					}
					continue
				}
				if err != nil || !tform.MatchString(s) {
					t.Fatalf("EncodeTypeID(%v) = %q, %v, not of the form %s", id, s, err, tform)
				}
				if back, err := publicid.DecodeTypeID(tc, s); err != nil || back != id {
					t.Fatalf("DecodeTypeID(EncodeTypeID(%v)) = %v, %v", id, back, err)
				}
			}
		})
	}
}

func TestSameIDSameFormAndKeysDiffer(t *testing.T) {
	id := types.Snowflake(1541815603606036480)
	a1 := mustNew[types.Snowflake](t, "user", key1)
	again := mustNew[types.Snowflake](t, "user", key1)
	if mustEncode(t, a1, id) != mustEncode(t, again, id) {
		t.Error("two codecs with the same key and prefix encode differently")
	}
	// Another key (under the same key ID) or another prefix: unrelated forms.
	other := mustNew[types.Snowflake](t, "user", "1:"+strings.TrimPrefix(key2, "2:"))
	order := mustNew[types.Snowflake](t, "order", key1)
	if mustEncode(t, a1, id)[6:] == mustEncode(t, other, id)[6:] || mustEncode(t, a1, id)[6:] == mustEncode(t, order, id)[7:] {
		t.Error("another key or prefix gives the same digits")
	}
	if got, err := other.Decode(mustEncode(t, a1, id)); err == nil && got == id {
		t.Error("another secret decodes the public ID to the same ID")
	}
}

func TestKeyRotation(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	before := mustNew[types.ObjectID](t, "order", key1)
	during := mustNew[types.ObjectID](t, "order", key2+","+key1) // key 2 encodes, key 1 still decodes
	after := mustNew[types.ObjectID](t, "order", key2)           // key 1 retired
	for range 1000 {
		id := randomObjectID(r)
		old := mustEncode(t, before, id)
		if got, err := during.Decode(old); err != nil || got != id {
			t.Fatalf("a public ID of the old key: %v, %v", got, err)
		}
		s := mustEncode(t, during, id)
		if s[len("order_")] != '2' || s == old {
			t.Fatalf("the new key does not encode: %q", s)
		}
		if got, err := after.Decode(s); err != nil || got != id {
			t.Fatalf("after rotation: %v, %v", got, err)
		}
		if _, err := after.Decode(old); !errors.Is(err, publicid.ErrUnknownKey) || !errors.Is(err, publicid.ErrInvalid) {
			t.Fatalf("a retired key's public ID: %v, want ErrUnknownKey", err)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	sf := mustNew[types.Snowflake](t, "user", key1+" "+key2)
	good := mustEncode(t, sf, 42)
	body := strings.TrimPrefix(good, "user_")
	tests := []struct {
		in   string
		want error
	}{
		{"", publicid.ErrWrongPrefix},
		{body, publicid.ErrWrongPrefix},
		{"order_" + body, publicid.ErrWrongPrefix},
		{"User_" + body, publicid.ErrWrongPrefix},
		{"user__" + body, publicid.ErrWrongPrefix},
		{"user_x_" + body, publicid.ErrWrongPrefix},
		{"user_", publicid.ErrLength},
		{good[:len(good)-1], publicid.ErrLength},
		{good + "0", publicid.ErrLength},
		{good + "\x00", publicid.ErrLength},
		{"user_" + strings.ToUpper(body), publicid.ErrAlphabet},
		{"user_1" + strings.Repeat("i", 13), publicid.ErrAlphabet},
		{"user_1" + strings.Repeat("o", 13), publicid.ErrAlphabet},
		{"user_1" + strings.Repeat("-", 13), publicid.ErrAlphabet},
		{"user_1" + "é" + strings.Repeat("0", 11), publicid.ErrAlphabet},
		{"user_u" + body[1:], publicid.ErrAlphabet},
		{"user_1g" + body[2:], publicid.ErrNonCanonical},
		{"user_1z" + body[2:], publicid.ErrNonCanonical},
		{"user_3" + body[1:], publicid.ErrUnknownKey},
		{"user_0" + body[1:], publicid.ErrUnknownKey},
	}
	for _, tt := range tests {
		got, err := sf.Decode(tt.in)
		if !errors.Is(err, tt.want) || !errors.Is(err, publicid.ErrInvalid) || got != 0 {
			t.Errorf("Decode(%q) = %v, %v; want an error wrapping %v", tt.in, got, err, tt.want)
		}
	}
	noPrefix := mustNew[types.Snowflake](t, "", key1)
	if _, err := noPrefix.Decode(good); !errors.Is(err, publicid.ErrWrongPrefix) {
		t.Errorf("a codec without a prefix decodes %q: %v", good, err)
	}
	// An order ID is not a user ID, even under the same key.
	orders := mustNew[types.Snowflake](t, "order", key1)
	if _, err := sf.Decode(mustEncode(t, orders, 42)); !errors.Is(err, publicid.ErrWrongPrefix) {
		t.Errorf("an order ID decodes as a user ID: %v", err)
	}
	// Forms of the other kinds are the wrong length.
	oc := mustNew[types.ObjectID](t, "user", key1)
	uc := mustNew[types.UUID](t, "user", key1)
	tid, err := publicid.EncodeTypeID(uc, types.NewUUIDv7())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{mustEncode(t, oc, types.ObjectID{11: 1}), mustEncode(t, uc, types.UUID{15: 1}), tid} {
		if _, err := sf.Decode(s); !errors.Is(err, publicid.ErrLength) {
			t.Errorf("Decode(%q) = %v, want ErrLength", s, err)
		}
	}
	if _, err := oc.Decode("user_12" + strings.Repeat("0", 19)); !errors.Is(err, publicid.ErrNonCanonical) {
		t.Errorf("ObjectID with a first digit 2: %v", err)
	}
	if _, err := uc.Decode("user_18" + strings.Repeat("0", 25)); !errors.Is(err, publicid.ErrNonCanonical) {
		t.Errorf("UUID with a first digit 8: %v", err)
	}
}

func TestNewErrors(t *testing.T) {
	bad := []struct{ prefix, keys string }{
		{"User", key1},
		{"_user", key1},
		{"user_", key1},
		{"us3r", key1},
		{"pre.fix", key1},
		{strings.Repeat("a", 64), key1},
		{"user", ""},
		{"user", " , "},
		{"user", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"},
		{"user", "i" + key1[1:]},
		{"user", "U" + key1[1:]},
		{"user", "12" + key1[1:]},
		{"user", key1 + " " + key1},
		{"user", "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh"},
		{"user", "1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8AA"},
		{"user", "1:not base64!"},
	}
	for _, b := range bad {
		_, err := publicid.New[types.Snowflake](b.prefix, b.keys)
		if !errors.Is(err, publicid.ErrInvalidConfig) {
			t.Errorf("New(%q, %q) = %v, want ErrInvalidConfig", b.prefix, b.keys, err)
		}
		if err != nil && len(b.keys) > 20 && strings.Contains(err.Error(), b.keys[2:20]) {
			t.Errorf("the error quotes the secret: %v", err)
		}
	}
	// Standard base64 with padding and a newline-separated ring are fine.
	if _, err := publicid.New[types.UUID]("user", "a:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n"+key2+"\n"); err != nil {
		t.Error(err)
	}
}

// TestPublicFormHidesNeighbours checks that IDs one apart give public IDs
// that share no visible structure: on average half the bits differ.
func TestPublicFormHidesNeighbours(t *testing.T) {
	c := mustNew[types.Snowflake](t, "", key1)
	prev := mustEncode(t, c, 1541815603606036480)
	same := 0
	for i := 1; i < 1000; i++ {
		s := mustEncode(t, c, types.Snowflake(1541815603606036480+i))
		for j := 1; j < len(s); j++ {
			if s[j] == prev[j] {
				same++
			}
		}
		prev = s
	}
	// 13 digits, 1 in 32 equal by chance (the first of 16 values): about 460.
	if same > 700 {
		t.Errorf("%d equal digits between neighbours", same)
	}
}

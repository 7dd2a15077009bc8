package types_test

import (
	"errors"
	"testing"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/types"
)

// formOf picks a form from a fuzzed byte: ordered, reversed or shard:S with
// S from 0 to 17, so that invalid counts are fuzzed too.
func formOf(b byte) types.Form {
	switch b % 20 {
	case 18:
		return types.Form{}
	case 19:
		return types.BitReversed()
	}
	return types.ShardBits(int(b % 20))
}

func FuzzFormSnowflake(f *testing.F) {
	for _, s := range []int64{0, 1, 2, -1, 1 << 62, 1<<63 - 1, 1946618112823218176} {
		f.Add(s, s+1, byte(4))
		f.Add(s, s^1, byte(19))
	}
	f.Fuzz(func(t *testing.T, a, b int64, fb byte) {
		form := formOf(fb)
		ka, err := form.Snowflake(types.Snowflake(a))
		if err != nil {
			if !errors.Is(err, types.ErrInvalidSnowflake) && !errors.Is(err, generator.ErrInvalidConfig) {
				t.Fatalf("%s.Snowflake(%d): %v wraps no sentinel", form, a, err)
			}
			if ka != 0 {
				t.Fatalf("%s.Snowflake(%d) returned %d with an error", form, a, ka)
			}
			return
		}
		if ka < 0 || (a == 0) != (ka == 0) {
			t.Fatalf("%s.Snowflake(%d) = %d", form, a, ka)
		}
		back, err := form.OrderedSnowflake(ka)
		if err != nil || back != types.Snowflake(a) {
			t.Fatalf("%s: %d -> %d -> %d, %v", form, a, ka, back, err)
		}
		if kb, err := form.Snowflake(types.Snowflake(b)); err == nil && a != b && ka == kb {
			t.Fatalf("%s: %d and %d share the key %d", form, a, b, ka)
		}
	})
}

func FuzzFormObjectID(f *testing.F) {
	f.Add([]byte("65a1b2c3d4e5f60718293a4b"), []byte("65a1b2c3d4e5f60718293a4c"), byte(8))
	f.Fuzz(func(t *testing.T, ra, rb []byte, fb byte) {
		var a, b types.ObjectID
		copy(a[:], ra)
		copy(b[:], rb)
		form := formOf(fb)
		ka, err := form.ObjectID(a)
		if err != nil {
			if !errors.Is(err, generator.ErrInvalidConfig) {
				t.Fatalf("%s.ObjectID(%s): %v wraps no sentinel", form, a, err)
			}
			return
		}
		if a.IsZero() != ka.IsZero() {
			t.Fatalf("%s.ObjectID(%s) = %s", form, a, ka)
		}
		back, err := form.OrderedObjectID(ka)
		if err != nil || back != a {
			t.Fatalf("%s: %s -> %s -> %s, %v", form, a, ka, back, err)
		}
		if kb, err := form.ObjectID(b); err == nil && a != b && ka == kb {
			t.Fatalf("%s: %s and %s share the key %s", form, a, b, ka)
		}
	})
}

func FuzzFormUUID(f *testing.F) {
	v7 := types.MustParseUUID("019a4c1e-2f00-7abc-9def-0123456789ab")
	f.Add(v7[:], v7[:], byte(8))
	f.Add(make([]byte, 16), v7[:], byte(1))
	f.Fuzz(func(t *testing.T, ra, rb []byte, fb byte) {
		var a, b types.UUID
		copy(a[:], ra)
		copy(b[:], rb)
		// Make most inputs valid version 7 UUIDs; keep some as given.
		if fb&0x80 == 0 {
			a[6], a[8] = a[6]&0x0f|0x70, a[8]&0x3f|0x80
			b[6], b[8] = b[6]&0x0f|0x70, b[8]&0x3f|0x80
		}
		form := formOf(fb)
		ka, err := form.UUID(a)
		if err != nil {
			if !errors.Is(err, types.ErrInvalidUUID) && !errors.Is(err, generator.ErrInvalidConfig) {
				t.Fatalf("%s.UUID(%s): %v wraps no sentinel", form, a, err)
			}
			return
		}
		if a.IsZero() != ka.IsZero() {
			t.Fatalf("%s.UUID(%s) = %s", form, a, ka)
		}
		if form != (types.Form{}) && !a.IsZero() && (ka[6]>>4 != 8 || !ka.Time().IsZero()) {
			t.Fatalf("%s.UUID(%s) = %s: not a version 8 UUID without a time", form, a, ka)
		}
		back, err := form.OrderedUUID(ka)
		if err != nil || back != a {
			t.Fatalf("%s: %s -> %s -> %s, %v", form, a, ka, back, err)
		}
		if kb, err := form.UUID(b); err == nil && a != b && ka == kb {
			t.Fatalf("%s: %s and %s share the key %s", form, a, b, ka)
		}
	})
}

// FuzzParseForm checks that ParseForm accepts only what Form.String writes
// (and "" for the ordered form): whatever parses is written back as the
// same text and parses to the same Form, and anything else gives the zero
// Form and an error wrapping ErrInvalidConfig.
func FuzzParseForm(f *testing.F) {
	for _, s := range []string{"", "ordered", "reversed", "shard:1", "shard:8", "shard:16", "shard:0", "shard:17",
		"shard:+4", "shard:04", "shard: 4", "shard:4 ", "shard:0x4", "shard:-4", "shard:1_6", "shard", "Ordered"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		form, err := types.ParseForm(s)
		if err != nil {
			if !errors.Is(err, generator.ErrInvalidConfig) {
				t.Fatalf("ParseForm(%q): %v wraps no ErrInvalidConfig", s, err)
			}
			if form != (types.Form{}) {
				t.Fatalf("ParseForm(%q) = %v with its error; want the zero Form", s, form)
			}
			return
		}
		if text := form.String(); text != s && !(s == "" && text == "ordered") {
			t.Fatalf("ParseForm(%q) = %v, which is written %q", s, form, text)
		}
		if again, err := types.ParseForm(form.String()); err != nil || again != form {
			t.Fatalf("ParseForm(%q) = %v, but ParseForm(%q) = %v, %v", s, form, form.String(), again, err)
		}
	})
}

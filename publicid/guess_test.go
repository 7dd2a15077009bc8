package publicid_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/idkit-go/idkit/publicid"
	"github.com/idkit-go/idkit/types"
)

// alphabet is the public IDs' 32 digits.
const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// TestGuessedPublicIDs decodes a million random strings of the form a
// public ID has (the prefix, a key digit of the ring, then the kind's
// number of digits, any of the 32 in every place) for each kind, with a
// ring of two keys, as a
// scraper guessing IDs sends them. Each must be a documented error, or an
// ID valid for its type that encodes back to the same string: none may
// decode to an ID that Value refuses, which a handler would answer with a
// 500. -short and -race try 50,000 of each.
func TestGuessedPublicIDs(t *testing.T) {
	n := 1_000_000
	if testing.Short() || raceEnabled { // single-goroutine loops: the race detector finds nothing here
		n = 50_000
	}
	t.Run("Snowflake", func(t *testing.T) {
		t.Parallel()
		guess(t, mustNew[types.Snowflake](t, "user", key1+","+key2), mustNew[types.Snowflake](t, "user", key2+","+key1), "user_", 13, n, 1)
	})
	t.Run("ObjectID", func(t *testing.T) {
		t.Parallel()
		guess(t, mustNew[types.ObjectID](t, "order", key1+","+key2), mustNew[types.ObjectID](t, "order", key2+","+key1), "order_", 20, n, 2)
	})
	t.Run("UUID", func(t *testing.T) {
		t.Parallel()
		guess(t, mustNew[types.UUID](t, "", key1+","+key2), mustNew[types.UUID](t, "", key2+","+key1), "", 26, n, 3)
	})
}

func guess[T interface {
	types.Snowflake | types.ObjectID | types.UUID
}](t *testing.T, c, by2 *publicid.Codec[T], prefix string, digits, n int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 47))
	b := []byte(prefix)
	var decoded, refused int
	for range n {
		b = append(b[:len(prefix)], "12"[r.IntN(2)])
		for range digits {
			b = append(b, alphabet[r.IntN(32)])
		}
		s := string(b)
		id, err := c.Decode(s)
		if err != nil {
			refused++
		} else {
			decoded++
		}
		encode := c.Encode // a public ID of key 2 encodes back with key 2
		if b[len(prefix)] == '2' {
			encode = by2.Encode
		}
		checkDecode(t, s, id, err, encode)
	}
	t.Logf("%d random public IDs: %d decoded to valid IDs that encode back, %d refused with a documented error", n, decoded, refused)
}

// TestDecodeRefusesInvalidIDs checks that digits which decrypt to a zero
// ID or a negative Snowflake are refused with ErrNonCanonical: they are
// what Encode would write for an ID it refuses.
func TestDecodeRefusesInvalidIDs(t *testing.T) {
	c := mustNew[types.Snowflake](t, "user", key1)
	r := rand.New(rand.NewPCG(7, 8))
	found := 0
	for found < 100 {
		b := []byte("user_1")
		b = append(b, alphabet[r.IntN(16)])
		for range 12 {
			b = append(b, alphabet[r.IntN(32)])
		}
		id, err := c.Decode(string(b))
		if err == nil {
			continue
		}
		found++
		if !errors.Is(err, publicid.ErrNonCanonical) || !errors.Is(err, publicid.ErrInvalid) || id != 0 {
			t.Fatalf("Decode(%q) = %v, %v; want ErrNonCanonical", b, id, err)
		}
		if !strings.Contains(err.Error(), "names no valid Snowflake") {
			t.Errorf("message: %v", err)
		}
	}
}

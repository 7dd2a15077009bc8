package publicid_test

import (
	"crypto/aes"
	"fmt"
	"math/rand/v2"
	"testing"

	capitalone "github.com/capitalone/fpe/ff1"

	"github.com/idkit-go/idkit/internal/ff1"
)

// bitString writes the n-bit number hi:lo as n binary digits.
func bitString(hi, lo uint64, n uint) string {
	if n <= 64 {
		return fmt.Sprintf("%0*b", n, lo)
	}
	return fmt.Sprintf("%0*b%064b", n-64, hi, lo)
}

// TestFF1MatchesCapitalOne checks idkit's radix-2 FF1 against
// github.com/capitalone/fpe's FF1 (an independent implementation tested
// on NIST's samples) on the lengths publicid uses and others.
func TestFF1MatchesCapitalOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []uint{20, 33, 64, 96, 125, 128} {
		for range 50 {
			key := make([]byte, 32)
			for i := range key {
				key[i] = byte(rng.Uint32())
			}
			block, err := aes.NewCipher(key)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := capitalone.NewCipher(2, 16, key, nil)
			if err != nil {
				t.Fatal(err)
			}
			hi, lo := rng.Uint64(), rng.Uint64()
			switch {
			case n < 64:
				hi, lo = 0, lo&(1<<n-1)
			case n == 64:
				hi = 0
			case n < 128:
				hi &= 1<<(n-64) - 1
			}
			in := bitString(hi, lo, n)
			want, err := ref.Encrypt(in)
			if err != nil {
				t.Fatal(err)
			}
			ghi, glo := ff1.New(block, n).Encrypt(hi, lo)
			if got := bitString(ghi, glo, n); got != want {
				t.Fatalf("n=%d: FF1(%s) = %s, capitalone/fpe %s", n, in, got, want)
			}
		}
	}
}

package ff1

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// refFF1 is FF1 (NIST SP 800-38G Rev. 1, algorithms 7 and 8) written
// straight from the standard with math/big, for any radix and tweak. It
// checks the fast radix-2 ff1 and is itself checked against NIST's samples.
func refFF1(block cipher.Block, tweak []byte, radix int, x []int, decrypt bool) []int {
	n := len(x)
	u, v := n/2, n-n/2
	bigRadix := big.NewInt(int64(radix))
	pow := func(m int) *big.Int { return new(big.Int).Exp(bigRadix, big.NewInt(int64(m)), nil) }
	num := func(d []int) *big.Int {
		r := new(big.Int)
		for _, c := range d {
			r.Mul(r, bigRadix).Add(r, big.NewInt(int64(c)))
		}
		return r
	}
	str := func(c *big.Int, m int) []int {
		out := make([]int, m)
		c = new(big.Int).Set(c)
		for i := m - 1; i >= 0; i-- {
			var r big.Int
			c.DivMod(c, bigRadix, &r)
			out[i] = int(r.Int64())
		}
		return out
	}
	b := (new(big.Int).Sub(pow(v), big.NewInt(1)).BitLen() + 7) / 8
	d := 4*((b+3)/4) + 4
	t := len(tweak)
	p := []byte{1, 2, 1, byte(radix >> 16), byte(radix >> 8), byte(radix), 10, byte(u)}
	p = binary.BigEndian.AppendUint32(p, uint32(n))
	p = binary.BigEndian.AppendUint32(p, uint32(t))
	a, bb := append([]int(nil), x[:u]...), append([]int(nil), x[u:]...)
	rounds := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	if decrypt {
		rounds = []int{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}
	}
	for _, i := range rounds {
		in := bb
		if decrypt {
			in = a
		}
		q := append([]byte(nil), tweak...)
		q = append(q, make([]byte, ((-t-b-1)%16+16)%16)...)
		q = append(q, byte(i))
		q = append(q, num(in).FillBytes(make([]byte, b))...)
		msg := append(append([]byte(nil), p...), q...)
		r := make([]byte, 16)
		for j := 0; j < len(msg); j += 16 {
			for k := range 16 {
				r[k] ^= msg[j+k]
			}
			block.Encrypt(r, r)
		}
		s := append([]byte(nil), r...)
		for j := 1; len(s) < d; j++ {
			var x [16]byte
			binary.BigEndian.PutUint64(x[8:], uint64(j))
			for k := range 16 {
				x[k] ^= r[k]
			}
			block.Encrypt(x[:], x[:])
			s = append(s, x[:]...)
		}
		y := new(big.Int).SetBytes(s[:d])
		m := u
		if i%2 == 1 {
			m = v
		}
		if !decrypt {
			c := new(big.Int).Add(num(a), y)
			c.Mod(c, pow(m))
			a, bb = bb, str(c, m)
		} else {
			c := new(big.Int).Sub(num(bb), y)
			c.Mod(c, pow(m))
			bb, a = a, str(c, m)
		}
	}
	return append(a, bb...)
}

const digits36 = "0123456789abcdefghijklmnopqrstuvwxyz"

// TestFF1NISTSamples checks refFF1 against the nine FF1 samples NIST
// publishes (https://csrc.nist.gov/CSRC/media/Projects/Cryptographic-Standards-and-Guidelines/documents/examples/FF1samples.pdf).
func TestFF1NISTSamples(t *testing.T) {
	const k128 = "2B7E151628AED2A6ABF7158809CF4F3C"
	const k192 = k128 + "EF4359D8D580AA4F"
	const k256 = k192 + "7F036D6F04FC6A94"
	samples := []struct {
		key, tweak  string
		radix       int
		plain, want string
	}{
		{k128, "", 10, "0123456789", "2433477484"},
		{k128, "39383736353433323130", 10, "0123456789", "6124200773"},
		{k128, "3737373770717273373737", 36, "0123456789abcdefghi", "a9tv40mll9kdu509eum"},
		{k192, "", 10, "0123456789", "2830668132"},
		{k192, "39383736353433323130", 10, "0123456789", "2496655549"},
		{k192, "3737373770717273373737", 36, "0123456789abcdefghi", "xbj3kv35jrawxv32ysr"},
		{k256, "", 10, "0123456789", "6657667009"},
		{k256, "39383736353433323130", 10, "0123456789", "1001623463"},
		{k256, "3737373770717273373737", 36, "0123456789abcdefghi", "xs8a0azh2avyalyzuwd"},
	}
	for i, s := range samples {
		key, _ := hex.DecodeString(s.key)
		tweak, _ := hex.DecodeString(s.tweak)
		block, err := aes.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		var x []int
		for _, c := range s.plain {
			x = append(x, strings.IndexRune(digits36, c))
		}
		got := refFF1(block, tweak, s.radix, x, false)
		var out strings.Builder
		for _, d := range got {
			out.WriteByte(digits36[d])
		}
		if out.String() != s.want {
			t.Errorf("sample %d: encrypt gives %s, want %s", i+1, out.String(), s.want)
		}
		back := refFF1(block, tweak, s.radix, got, true)
		for j := range x {
			if back[j] != x[j] {
				t.Errorf("sample %d: decrypt does not give the plaintext back", i+1)
				break
			}
		}
	}
}

// TestFF1Radix2MatchesReference checks the uint64 radix-2 FF1 against
// refFF1 for the lengths idkit uses and others, with random keys and
// messages.
func TestFF1Radix2MatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []uint{20, 40, 63, 64, 65, 96, 125, 127, 128} {
		for range 20 {
			key := make([]byte, 32)
			for i := range key {
				key[i] = byte(rng.Uint32())
			}
			block, _ := aes.NewCipher(key)
			f := New(block, n)
			hi, lo := rng.Uint64(), rng.Uint64()
			if n <= 64 {
				hi, lo = 0, lo&mask(n)
			} else {
				hi &= mask(n - 64)
			}
			x := make([]int, n)
			for i := range n {
				bit := n - 1 - i // x[0] is the top bit
				if bit >= 64 {
					x[i] = int(hi >> (bit - 64) & 1)
				} else {
					x[i] = int(lo >> bit & 1)
				}
			}
			want := refFF1(block, nil, 2, x, false)
			ghi, glo := f.Encrypt(hi, lo)
			var wantHi, wantLo uint64
			for _, d := range want {
				wantHi = wantHi<<1 | wantLo>>63
				wantLo = wantLo<<1 | uint64(d)
			}
			if ghi != wantHi || glo != wantLo {
				t.Fatalf("n=%d: encrypt(%x:%x) = %x:%x, reference %x:%x", n, hi, lo, ghi, glo, wantHi, wantLo)
			}
			if dhi, dlo := f.Decrypt(ghi, glo); dhi != hi || dlo != lo {
				t.Fatalf("n=%d: decrypt does not invert encrypt", n)
			}
		}
	}
}

// TestAESFIPS197 checks the block cipher against the AES-256 example of
// FIPS-197, appendix C.3.
func TestAESFIPS197(t *testing.T) {
	key, _ := hex.DecodeString("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
	plain, _ := hex.DecodeString("00112233445566778899aabbccddeeff")
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 16)
	block.Encrypt(got, plain)
	if hex.EncodeToString(got) != "8ea2b7ca516745bfeafc49904b496089" {
		t.Errorf("AES-256 gives %x", got)
	}
}

// Package ff1 is FF1 (NIST SP 800-38G) with radix 2 and an empty tweak on
// messages of up to 128 bits held in two uint64s, for package publicid.
package ff1

import (
	"crypto/cipher"
	"encoding/binary"
	"sync"
)

// blocks holds 16-byte buffers for the AES calls: a slice passed to
// [cipher.Block] (an interface) escapes to the heap, so a buffer on the
// stack would cost an allocation per call.
var blocks = sync.Pool{New: func() any { return new([16]byte) }}

// Cipher is FF1 (NIST SP 800-38G, Rev. 1) with radix 2 and an empty tweak,
// for messages of n bits, 20 <= n <= 128, held as a big-endian number: bit
// 1 of the standard's string is the most significant bit. Its two halves
// fit uint64s, so a message costs ten AES block encryptions and no
// allocation. It is safe for concurrent use.
type Cipher struct {
	block cipher.Block
	n     uint     // message length in bits
	u, v  uint     // the halves: u = floor(n/2), v = n - u
	b     int      // bytes of NUM(B) in Q: ceil(v/8)
	d     int      // bytes of S used: 4*ceil(b/4) + 4
	p     [16]byte // CIPH_K(P): the first CBC-MAC block, the same for every message
}

// New returns FF1 over n-bit messages with the AES block b.
func New(b cipher.Block, n uint) *Cipher {
	f := &Cipher{block: b, n: n, u: n / 2, v: n - n/2}
	f.b = int(f.v+7) / 8
	f.d = 4*((f.b+3)/4) + 4
	// P = [1]^1 || [2]^1 || [1]^1 || [radix]^3 || [10]^1 || [u mod 256]^1 || [n]^4 || [t]^4
	p := [16]byte{1, 2, 1, 0, 0, 2, 10, byte(f.u)}
	binary.BigEndian.PutUint32(p[8:], uint32(n))
	b.Encrypt(f.p[:], p[:])
	return f
}

// round returns the low 64 bits of y = NUM(S) for round i with the half x
// (B when encrypting, A when decrypting).
// q is scratch space.
func (f *Cipher) round(i int, x uint64, q *[16]byte) uint64 {
	// Q = T || [0]^((-t-b-1) mod 16) || [i]^1 || [NUM(x)]^b, one block as t = 0
	// and b <= 8; R = PRF(P || Q) = CIPH(CIPH(P) xor Q).
	*q = f.p
	binary.BigEndian.PutUint64(q[8:], binary.BigEndian.Uint64(q[8:])^x)
	q[15-f.b] ^= byte(i)
	f.block.Encrypt(q[:], q[:])
	// S is the first d <= 16 bytes of R; y mod 2^m needs only its last 8
	// bytes, as m <= 64.
	return binary.BigEndian.Uint64(q[f.d-8 : f.d])
}

func mask(m uint) uint64 { return 1<<m - 1 } // m <= 64: 1<<64 is 0 in Go, and 0-1 is all ones

// Encrypt returns the FF1 encryption of the n-bit message hi:lo (hi holds
// the bits above 64).
func (f *Cipher) Encrypt(hi, lo uint64) (uint64, uint64) {
	q := blocks.Get().(*[16]byte)
	defer blocks.Put(q)
	a, b := split(hi, lo, f.v)
	for i := range 10 {
		m := f.u
		if i%2 == 1 {
			m = f.v
		}
		c := (a + f.round(i, b, q)) & mask(m)
		a, b = b, c
	}
	return join(a, b, f.v)
}

// Decrypt inverts Encrypt.
func (f *Cipher) Decrypt(hi, lo uint64) (uint64, uint64) {
	q := blocks.Get().(*[16]byte)
	defer blocks.Put(q)
	a, b := split(hi, lo, f.v)
	for i := 9; i >= 0; i-- {
		m := f.u
		if i%2 == 1 {
			m = f.v
		}
		c := (b - f.round(i, a, q)) & mask(m)
		b, a = a, c
	}
	return join(a, b, f.v)
}

// split returns A, the bits of hi:lo above the low v, and B, the low v.
func split(hi, lo uint64, v uint) (a, b uint64) {
	if v == 64 {
		return hi, lo
	}
	return hi<<(64-v) | lo>>v, lo & mask(v)
}

// join inverts split.
func join(a, b uint64, v uint) (hi, lo uint64) {
	if v == 64 {
		return a, b
	}
	return a >> (64 - v), a<<v | b
}

// Package scatter holds the bit transforms behind types.Form: each maps a
// time-ordered ID to a key that spreads over the key range and back. They
// take valid input (a Snowflake below 2^63, shard bits in [1, MaxBits]);
// types.Form and the generators check it first. Every transform is its own
// inverse except the UUID one, whose two directions differ only in the
// version nibble they write.
package scatter

import (
	"encoding/binary"
	"math/bits"
)

// MaxBits is the largest number of shard bits a form takes.
const MaxBits = 16

// k1 is the multiplier of the hash: the odd 64-bit constant of Fibonacci
// hashing (2^64 over the golden ratio). The top bits of x*k1 depend on
// every bit of x, and a zero input hashes to zero, so the zero ID stays
// the zero key. Wider IDs fold their words together with XOR first: one
// multiply keeps the key's cost to a few cycles.
const k1 = 0x9e3779b97f4a7c15

// Reverse63 reverses the low 63 bits of x, which must be below 2^63: bit 0
// becomes bit 62. The result is below 2^63, and Reverse63(Reverse63(x)) == x.
func Reverse63(x uint64) uint64 { return bits.Reverse64(x) >> 1 }

// Snowflake XORs the top s of x's 63 bits with a hash of the 63-s bits
// below them, which it leaves as they are; so it is its own inverse, and a
// bijection of [0, 2^63). x must be below 2^63 and s in [1, MaxBits].
func Snowflake(x uint64, s uint) uint64 {
	low := x & (1<<(63-s) - 1)
	return x ^ (low*k1)>>(64-s)<<(63-s)
}

// ObjectID XORs the top s bits of b with a hash of its other 96-s bits,
// in place; applying it twice restores b. s is in [1, MaxBits]. It reads
// b as the generator writes it, 8 bytes then 4, so that the loads take the
// stores' values without a stall.
func ObjectID(b *[12]byte, s uint) {
	hi := ObjectIDWords(binary.BigEndian.Uint64(b[0:8]), binary.BigEndian.Uint32(b[8:12]), s)
	binary.BigEndian.PutUint64(b[0:8], hi)
}

// ObjectIDWords is ObjectID on an ObjectID's bytes 0 to 7 (hi) and 8 to 11
// (lo): it returns the key's bytes 0 to 7; bytes 8 to 11 stay lo.
func ObjectIDWords(hi uint64, lo uint32, s uint) uint64 {
	rest := hi & (1<<(64-s) - 1)
	h := ((rest ^ uint64(lo)) * k1) >> (64 - s)
	return hi ^ h<<(64-s)
}

// versionMask covers the version nibble of a UUID's first 8 bytes read as
// a big-endian uint64.
const versionMask = 0xf << 12

// UUID XORs the top s bits of b with a hash of its other bits except the
// version nibble, in place, and sets the version nibble to version. With
// version 8 it makes the key of a version 7 UUID, and with version 7 it
// turns that key back. s is in [1, MaxBits].
func UUID(b *[16]byte, s uint, version uint64) {
	hi := UUIDWords(binary.BigEndian.Uint64(b[0:8]), binary.BigEndian.Uint64(b[8:16]), s, version)
	binary.BigEndian.PutUint64(b[0:8], hi)
}

// UUIDWords is UUID on a UUID's bytes 0 to 7 (hi) and 8 to 15 (lo): it
// returns the key's bytes 0 to 7; bytes 8 to 15 stay lo.
func UUIDWords(hi, lo uint64, s uint, version uint64) uint64 {
	rest := hi & (1<<(64-s) - 1) &^ versionMask
	h := ((rest ^ lo) * k1) >> (64 - s)
	hi ^= h << (64 - s)
	return hi&^versionMask | version<<12
}

package objectidgen

import "encoding/binary"

// EncodeHex writes the 24 lower-case hex digits of id into dst, eight
// digits at a time (see Hex8). types.ObjectID's text forms and the idkit
// command's output loop share it.
func EncodeHex(dst []byte, id *[12]byte) {
	_ = dst[23]
	binary.BigEndian.PutUint64(dst[0:8], Hex8(binary.BigEndian.Uint32(id[0:4])))
	binary.BigEndian.PutUint64(dst[8:16], Hex8(binary.BigEndian.Uint32(id[4:8])))
	binary.BigEndian.PutUint64(dst[16:24], Hex8(binary.BigEndian.Uint32(id[8:12])))
}

// Hex8 returns the eight lower-case hex digits of v as the bytes of a
// big-endian word, computed in one register: it spreads v's nibbles one
// to a byte, then adds '0' to each, and 'a'-'0'-10 more to those above 9
// (a nibble n is above 9 exactly when n+6 carries into bit 4). types.UUID's
// text uses it too.
func Hex8(v uint32) uint64 {
	x := uint64(v)
	x = (x&0xffff0000)<<16 | x&0xffff
	x = (x&0x0000ff000000ff00)<<8 | x&0x000000ff000000ff
	x = (x&0x00f000f000f000f0)<<4 | x&0x000f000f000f000f
	letters := (x + 0x0606060606060606) >> 4 & 0x0101010101010101
	return x + 0x3030303030303030 + letters*('a'-'0'-10)
}

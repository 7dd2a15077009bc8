package types

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/idkit-go/idkit/internal/objectidgen"
	"github.com/idkit-go/idkit/internal/uuidgen"
)

// ErrInvalidUUID is wrapped by every failure to parse, unmarshal, scan or
// decode a [UUID] or [NullUUID].
var ErrInvalidUUID = errors.New("types: invalid UUID")

// UUID is an RFC 9562 UUID of any version. Its underlying type is
// [16]byte, so it converts directly to and from Go's uuid.UUID and
// github.com/google/uuid's UUID. The zero value (the nil UUID) means
// "no ID". [NewUUIDv7] makes time-ordered version 7 UUIDs.
type UUID [16]byte

// NewUUIDv7 returns a new version 7 UUID from the process-wide generator:
// a 48-bit Unix millisecond time, a counter with a random start, and random
// bits from a ChaCha8 source seeded from crypto/rand. It never fails and is
// safe for concurrent use. Within a process each ID is above every ID
// returned before the call began, even when the system clock steps back
// (IDs keep the last millisecond until the clock passes it); IDs of
// different processes are unique with overwhelming probability but not
// ordered within a millisecond. See
// https://github.com/idkit-go/idkit/blob/main/docs/generators.md.
func NewUUIDv7() (id UUID) {
	hi, lo := uuidGen.NextWords(0)
	putUUID(&id, hi, lo)
	return id
}

// uuidGen is uuidgen.Default, read once when the package starts: calling
// Default, a sync.OnceValue, for every ID is one more call, an indirect
// one.
var uuidGen = uuidgen.Default()

// putUUID writes into id the UUID whose bytes 0 to 7 and 8 to 15, read
// big-endian, are hi and lo. The generator returns a UUID's words in
// registers (see uuidgen.Generator.NextWords), and NewUUIDv7 and
// Form.NewUUID write them only here, into their result: each copy of a
// [16]byte just written as two 8-byte words stalls the CPU, which cannot
// forward two stores to one 16-byte load.
func putUUID(id *UUID, hi, lo uint64) {
	binary.BigEndian.PutUint64(id[0:8], hi)
	binary.BigEndian.PutUint64(id[8:16], lo)
}

// UUIDv7FromTime returns the smallest version 7 UUID of t's millisecond, for
// range queries ("id >= UUIDv7FromTime(from) AND id < UUIDv7FromTime(to)"),
// never as a key. Times before 1970 give the millisecond 0, and times after
// the 48-bit field's end (year 10889) its last millisecond.
func UUIDv7FromTime(t time.Time) UUID {
	ms := min(max(t.UnixMilli(), 0), 1<<48-1)
	var id UUID
	binary.BigEndian.PutUint64(id[0:8], uint64(ms)<<16|0x7000)
	id[8] = 0x80
	return id
}

// ParseUUID parses the canonical form of a UUID
// ("0190a3c2-5b7e-7def-8a12-3456789abcde"), upper- or lower-case, or its
// 32 hex digits without dashes. Any other input returns the zero UUID and
// an error wrapping [ErrInvalidUUID].
func ParseUUID(s string) (UUID, error) {
	var id UUID
	if err := decodeUUID(&id, s); err != nil {
		return UUID{}, err
	}
	return id, nil
}

// MustParseUUID is like [ParseUUID] but panics on bad input. It is meant
// for constants in tests and examples.
func MustParseUUID(s string) UUID {
	id, err := ParseUUID(s)
	if err != nil {
		panic(err)
	}
	return id
}

// String returns the canonical lower-case form of id,
// "0190a3c2-5b7e-7def-8a12-3456789abcde".
func (id UUID) String() string {
	var buf [36]byte
	encodeUUID(buf[:], &id)
	return string(buf[:])
}

// IsZero reports whether id is the nil UUID (all zeros).
func (id UUID) IsZero() bool { return id == UUID{} }

// Compare returns -1, 0 or +1 as id sorts before, equal to or after other.
// The order is that of the bytes (RFC 9562's), and so, for version 7
// UUIDs, of creation milliseconds.
func (id UUID) Compare(other UUID) int {
	return bytes.Compare(id[:], other[:])
}

// Time returns the Unix millisecond time of a version 7 UUID (variant 10),
// in UTC, and the zero [time.Time] for any other UUID.
func (id UUID) Time() time.Time {
	if id[6]>>4 != 7 || id[8]>>6 != 2 {
		return time.Time{}
	}
	ms := binary.BigEndian.Uint64(id[0:8]) >> 16
	return time.UnixMilli(int64(ms)).UTC()
}

// encodeUUID writes the 36-character canonical form of id into dst.
func encodeUUID(dst []byte, id *UUID) {
	_ = dst[35]
	binary.BigEndian.PutUint64(dst[0:8], objectidgen.Hex8(binary.BigEndian.Uint32(id[0:4])))
	dst[8] = '-'
	h := objectidgen.Hex8(binary.BigEndian.Uint32(id[4:8])) // xxxx-xxxx
	binary.BigEndian.PutUint32(dst[9:13], uint32(h>>32))
	dst[13] = '-'
	binary.BigEndian.PutUint32(dst[14:18], uint32(h))
	dst[18] = '-'
	h = objectidgen.Hex8(binary.BigEndian.Uint32(id[8:12]))
	binary.BigEndian.PutUint32(dst[19:23], uint32(h>>32))
	dst[23] = '-'
	binary.BigEndian.PutUint32(dst[24:28], uint32(h))
	binary.BigEndian.PutUint64(dst[28:36], objectidgen.Hex8(binary.BigEndian.Uint32(id[12:16])))
}

// decodeUUID decodes the canonical form or 32 hex digits into id, leaving
// id unchanged on error.
func decodeUUID(id *UUID, s string) error {
	t := &hexValue
	var g [8]uint64 // eight groups of four digits
	switch len(s) {
	case 36:
		if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
			return errUUIDForm(s)
		}
		g = [8]uint64{hexGroup(t, s[0:4]), hexGroup(t, s[4:8]), hexGroup(t, s[9:13]), hexGroup(t, s[14:18]),
			hexGroup(t, s[19:23]), hexGroup(t, s[24:28]), hexGroup(t, s[28:32]), hexGroup(t, s[32:36])}
	case 32:
		for i := range g {
			g[i] = hexGroup(t, s[4*i:4*i+4])
		}
	default:
		return errUUIDLength(s)
	}
	if g[0]|g[1]|g[2]|g[3]|g[4]|g[5]|g[6]|g[7] > 0xffff {
		return errUUIDForm(s)
	}
	binary.BigEndian.PutUint64(id[0:8], g[0]<<48|g[1]<<32|g[2]<<16|g[3])
	binary.BigEndian.PutUint64(id[8:16], g[4]<<48|g[5]<<32|g[6]<<16|g[7])
	return nil
}

//go:noinline
func errUUIDLength(s string) error {
	return fmt.Errorf("%w: %s has %d characters, want 36 (8-4-4-4-12 hex digits) or 32 hex digits", ErrInvalidUUID, quoteInput(s), len(s))
}

//go:noinline
func errUUIDForm(s string) error {
	return fmt.Errorf("%w: %s is not 32 hex digits, alone or in the 8-4-4-4-12 form", ErrInvalidUUID, quoteInput(s))
}

// decodeUUIDBytes is decodeUUID for a byte slice.
func decodeUUIDBytes(id *UUID, b []byte) error {
	if len(b) == 0 {
		return decodeUUID(id, "")
	}
	return decodeUUID(id, unsafe.String(&b[0], len(b))) // decodeUUID does not retain it
}

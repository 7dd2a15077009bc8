package publicid

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/idkit-go/idkit/types"
)

// id is the set of ID types a [Codec] maps.
type id interface {
	types.Snowflake | types.ObjectID | types.UUID
}

// Codec maps IDs of type T to public IDs and back with a key ring, and
// checks the type prefix its public IDs carry. Build one per kind of record
// with [New]; a Codec is safe for concurrent use.
type Codec[T id] struct {
	kind   kind
	prefix string   // the prefix followed by "_", or ""
	enc    *key     // the key that encodes: the ring's first
	byID   [32]*key // every key, by the value of its digit
	ring   []*key   // every key, in ring order
}

// New returns a Codec for IDs of type T ([types.Snowflake],
// [types.ObjectID] or [types.UUID]; Go's uuid.UUID converts to a
// [types.UUID]).
//
// prefix names the kind of record, as TypeID's prefixes do: up to 63 of
// a-z and "_", neither first nor last; "" makes public IDs without a
// prefix. keys is a key ring: entries "ID:SECRET" separated by commas or
// white space, where ID is one digit of the public alphabet (0-9, a-z but
// i, l, o, u) and SECRET is 32 random bytes in base64; the first key
// encodes, and every key decodes the public IDs it made. The keys of a
// UUID codec whose digits are 0-7 also make and read TypeIDs
// ([EncodeTypeID]). A bad prefix or ring returns an error wrapping
// [ErrInvalidConfig], which never quotes a secret.
func New[T id](prefix, keys string) (*Codec[T], error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	ring, err := parseRing(keys)
	if err != nil {
		return nil, err
	}
	c := &Codec[T]{kind: kindOf[T]()}
	if prefix != "" {
		c.prefix = prefix + "_"
	}
	for _, e := range ring {
		k, err := derive(e, c.kind, prefix)
		if err != nil {
			return nil, fmt.Errorf("%w: publicid: %v", ErrInvalidConfig, err)
		}
		c.byID[digitValue[e.id]] = k
		c.ring = append(c.ring, k)
	}
	c.enc = c.ring[0]
	return c, nil
}

// checkPrefix applies TypeID's rules for a prefix.
func checkPrefix(p string) error {
	bad := len(p) > 63 || strings.HasPrefix(p, "_") || strings.HasSuffix(p, "_")
	for i := 0; i < len(p) && !bad; i++ {
		bad = (p[i] < 'a' || p[i] > 'z') && p[i] != '_'
	}
	if bad {
		return fmt.Errorf("%w: publicid: prefix %s: want up to 63 of a-z and _, not starting or ending with _", ErrInvalidConfig, quote(p))
	}
	return nil
}

// Encode returns the public ID of id: the prefix and "_" (when the codec
// has a prefix), the digit of the encoding key, then id encrypted, in
// lower-case base32: 13 digits for a Snowflake, 20 for an ObjectID and 26
// for a UUID. It encodes only the IDs a database column of T can hold: a
// zero ID returns "" and an error wrapping [types.ErrZeroID], and a
// negative Snowflake one wrapping [types.ErrInvalidSnowflake], so that
// [Codec.Decode] can refuse every public ID that does not name a valid ID.
func (c *Codec[T]) Encode(id T) (string, error) {
	var buf [64 + 1 + 26]byte
	b, err := c.AppendEncode(buf[:0], id)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// AppendEncode appends the public ID of id, as [Codec.Encode] returns it,
// to dst and returns the extended slice; for an ID that Encode refuses it
// returns dst unchanged and Encode's error.
func (c *Codec[T]) AppendEncode(dst []byte, id T) ([]byte, error) {
	if err := c.check(id); err != nil {
		return dst, err
	}
	hi, lo := c.encrypt(c.enc, id)
	dst = append(dst, c.prefix...)
	dst = append(dst, c.enc.id)
	return appendBase32(dst, hi, lo, c.kind.digits()), nil
}

// check returns the error of Encode for an ID that no column can hold: a
// zero ID, or a negative Snowflake. It reads id as encrypt does.
func (c *Codec[T]) check(id T) error {
	zero := false
	switch c.kind {
	case kindSnowflake:
		v := *(*int64)(unsafe.Pointer(&id))
		if v < 0 {
			return fmt.Errorf("publicid: cannot encode the negative Snowflake %d: %w", v, types.ErrInvalidSnowflake)
		}
		zero = v == 0
	case kindObjectID:
		zero = *(*[12]byte)(unsafe.Pointer(&id)) == [12]byte{}
	default:
		zero = *(*[16]byte)(unsafe.Pointer(&id)) == [16]byte{}
	}
	if zero {
		return fmt.Errorf("publicid: cannot encode the zero %s: %w", c.kind.title(), types.ErrZeroID)
	}
	return nil
}

// Decode returns the ID whose public ID is s, made by [Codec.Encode] with
// any key of the ring. It accepts only the exact form Encode writes, and
// only for an ID Encode takes: every ID it returns is valid for its type
// (never zero, never a negative Snowflake) and encodes back to s with the
// key that made s. A failure returns the zero ID and an error wrapping
// [ErrInvalid] and one of [ErrWrongPrefix], [ErrLength], [ErrAlphabet],
// [ErrNonCanonical] and [ErrUnknownKey], so a handler can answer every
// such error as "not found".
func (c *Codec[T]) Decode(s string) (T, error) {
	body, err := c.cutPrefix(s)
	if err != nil {
		return *new(T), err
	}
	digits := c.kind.digits()
	if len(body) != 1+digits {
		return *new(T), invalid(ErrLength, s, strconv.Itoa(len(body))+" characters after the prefix, want "+strconv.Itoa(1+digits))
	}
	hi, lo, top, ok := decodeBase32(body[1:])
	kv := digitValue[body[0]]
	if !ok || kv == 0xff {
		return *new(T), invalid(ErrAlphabet, s, "want only 0-9 and a-z without i, l, o, u")
	}
	if top >= c.kind.topLimit() {
		return *new(T), invalid(ErrNonCanonical, s, "the first digit after the key is too large")
	}
	k := c.byID[kv]
	if k == nil {
		return *new(T), invalid(ErrUnknownKey, s, "made with key "+strconv.Quote(body[:1])+", which the key ring does not hold")
	}
	id := c.decrypt(k, hi, lo)
	if c.check(id) != nil {
		// Well-formed digits that decrypt to an ID Encode refuses: half of
		// all Snowflake digits decrypt to a negative one.
		return *new(T), invalid(ErrNonCanonical, s, "names no valid "+c.kind.title()+" (it decrypts to a zero or negative one): no encoder writes it")
	}
	return id, nil
}

// cutPrefix returns s without the codec's prefix and "_".
func (c *Codec[T]) cutPrefix(s string) (string, error) {
	body, ok := strings.CutPrefix(s, c.prefix)
	if !ok || strings.IndexByte(body, '_') >= 0 {
		want := "no prefix"
		if c.prefix != "" {
			want = "prefix " + strconv.Quote(c.prefix[:len(c.prefix)-1])
		}
		return "", invalid(ErrWrongPrefix, s, "want "+want)
	}
	return body, nil
}

// blocks holds 16-byte buffers for the AES calls of UUIDs: a slice passed
// to [crypto/cipher.Block] (an interface) escapes to the heap, so a buffer
// on the stack would cost an allocation per call.
var blocks = sync.Pool{New: func() any { return new([16]byte) }}

// encrypt returns id encrypted with k, as one number hi:lo. It reads id
// through unsafe pointers of the kind's type, as a type switch on any(id)
// would box it on the heap; the constraint makes T exactly that type.
func (c *Codec[T]) encrypt(k *key, id T) (hi, lo uint64) {
	switch c.kind {
	case kindSnowflake:
		return k.ff.Encrypt(0, uint64(*(*int64)(unsafe.Pointer(&id))))
	case kindObjectID:
		v := (*[12]byte)(unsafe.Pointer(&id))
		return k.ff.Encrypt(uint64(binary.BigEndian.Uint32(v[0:4])), binary.BigEndian.Uint64(v[4:12]))
	}
	q := blocks.Get().(*[16]byte)
	defer blocks.Put(q)
	*q = *(*[16]byte)(unsafe.Pointer(&id)) // id itself would escape through the interface call
	k.block.Encrypt(q[:], q[:])
	return binary.BigEndian.Uint64(q[0:8]), binary.BigEndian.Uint64(q[8:16])
}

// decrypt inverts encrypt.
func (c *Codec[T]) decrypt(k *key, hi, lo uint64) T {
	var out T
	switch c.kind {
	case kindSnowflake:
		_, lo = k.ff.Decrypt(hi, lo)
		*(*int64)(unsafe.Pointer(&out)) = int64(lo)
	case kindObjectID:
		hi, lo = k.ff.Decrypt(hi, lo)
		p := (*[12]byte)(unsafe.Pointer(&out))
		binary.BigEndian.PutUint32(p[0:4], uint32(hi))
		binary.BigEndian.PutUint64(p[4:12], lo)
	default:
		q := blocks.Get().(*[16]byte)
		defer blocks.Put(q)
		binary.BigEndian.PutUint64(q[0:8], hi)
		binary.BigEndian.PutUint64(q[8:16], lo)
		k.block.Decrypt(q[:], q[:])
		*(*[16]byte)(unsafe.Pointer(&out)) = *q
	}
	return out
}

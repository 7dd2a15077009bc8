package types

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idkit-go/idkit/internal/scatter"
	"github.com/idkit-go/idkit/internal/sentinel"
)

// Form is how an ID is laid out as a database key. The zero Form is the
// ordered form: the ID itself, whose keys rise with time. The scatter
// forms spread keys over the whole key range, so that a database that
// splits its key range across nodes (TiDB, CockroachDB, Spanner,
// YugabyteDB) or a table partitioned by key range gets its inserts on every
// range instead of the last one:
//
//   - [BitReversed] reverses the low 63 bits of a [Snowflake], as Spanner's
//     bit_reversed_positive sequences do; for Snowflakes only.
//   - [ShardBits] with s bits replaces the top s bits of a Snowflake, an
//     [ObjectID] or a [UUID] by those bits XOR a hash of the ID's other bits
//     (its time, node or process and sequence or counter), as TiDB's
//     AUTO_RANDOM(s) puts s shard bits on top: keys fall into 2^s shards by
//     their top s bits, each shard in time order. A UUID key is a version 8
//     UUID.
//
// Each scatter form is a bijection: the key of a unique ID is unique, and
// the methods named Ordered... return the ID a key was made from, exactly.
// A key does not record its form: decode the time, node or counter of a
// key only after turning it back with the form it was made with (the
// generator's or the column's), since [ObjectID.Timestamp] and the
// Snowflake layouts read the ordered form. A UUID key alone is recognised:
// it is version 8, so [UUID.Time] returns the zero time for it.
//
// Every method maps the zero ID to the zero ID. A Form is a comparable
// value, safe for concurrent use; see
// https://github.com/idkit-go/idkit/blob/main/docs/distributed-sql.md for
// which form suits which database.
type Form struct {
	kind formKind
	bits int // shard bits; any int, checked when used
}

type formKind uint8

const (
	formOrdered formKind = iota
	formReversed
	formShard
)

// BitReversed returns the form whose key is the [Snowflake] with its low 63
// bits in reverse order (bit 0 becomes bit 62). ObjectIDs and UUIDs do not
// take it.
func BitReversed() Form { return Form{kind: formReversed} }

// ShardBits returns the form whose key's top s bits are the ID's top s
// bits XOR a hash of its other bits. s must be in [1, 16]; a Form with
// another s is refused, with an error wrapping
// [github.com/idkit-go/idkit/generator.ErrInvalidConfig], wherever it is
// used.
func ShardBits(s int) Form { return Form{kind: formShard, bits: s} }

// ParseForm parses the text of a [Form], as [Form.String] writes it:
// exactly "ordered" (or ""), "reversed", or "shard:S" with S in [1, 16]
// written in decimal digits, with no sign, space or leading zero ("shard:4",
// not "shard:04" or "shard:+4"). Anything else returns the zero Form and an
// error wrapping [github.com/idkit-go/idkit/generator.ErrInvalidConfig].
func ParseForm(s string) (Form, error) {
	switch s {
	case "", "ordered":
		return Form{}, nil
	case "reversed":
		return BitReversed(), nil
	}
	if n, ok := strings.CutPrefix(s, "shard:"); ok && isDecimal(n) {
		if b, err := strconv.Atoi(n); err == nil {
			f := ShardBits(b)
			if err := f.check(); err != nil {
				return Form{}, err
			}
			return f, nil
		}
	}
	return Form{}, fmt.Errorf("%w: scatter form %s (want ordered, reversed or shard:S with S in [1, %d])",
		sentinel.ErrInvalidConfig, quoteInput(s), scatter.MaxBits)
}

// isDecimal reports whether s is a number as strconv.Itoa writes one that
// is not negative: digits, the first not 0 unless it is the only one.
func isDecimal(s string) bool {
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String returns the text of f: "ordered", "reversed" or "shard:S".
func (f Form) String() string {
	switch f.kind {
	case formReversed:
		return "reversed"
	case formShard:
		return "shard:" + strconv.Itoa(f.bits)
	}
	return "ordered"
}

// ShardBits returns the number of shard bits of f, and 0 for the ordered
// and bit-reversed forms.
func (f Form) ShardBits() int {
	if f.kind == formShard {
		return f.bits
	}
	return 0
}

// check returns an error wrapping ErrInvalidConfig for shard bits outside
// [1, MaxBits].
func (f Form) check() error {
	if f.kind == formShard && (f.bits < 1 || f.bits > scatter.MaxBits) {
		return fmt.Errorf("%w: scatter form shard:%d: shard bits %d not in [1, %d]",
			sentinel.ErrInvalidConfig, f.bits, f.bits, scatter.MaxBits)
	}
	return nil
}

// Snowflake returns the key of id in form f. It returns an error wrapping
// [ErrInvalidSnowflake] for a negative id and one wrapping
// [github.com/idkit-go/idkit/generator.ErrInvalidConfig] for an invalid f.
func (f Form) Snowflake(id Snowflake) (Snowflake, error) {
	return f.snowflake(id)
}

// OrderedSnowflake returns the Snowflake whose key in form f is key: the
// inverse of [Form.Snowflake], with the same errors.
func (f Form) OrderedSnowflake(key Snowflake) (Snowflake, error) {
	return f.snowflake(key) // both Snowflake forms are their own inverse
}

func (f Form) snowflake(id Snowflake) (Snowflake, error) {
	switch {
	case id < 0:
		return 0, errNegative(int64(id))
	case f.kind == formOrdered:
		return id, nil
	case f.kind == formReversed:
		return Snowflake(scatter.Reverse63(uint64(id))), nil
	case f.valid():
		return Snowflake(scatter.Snowflake(uint64(id), uint(f.bits))), nil
	}
	return 0, f.check()
}

// valid reports whether f is a shard form with a usable count of bits.
func (f Form) valid() bool {
	return f.kind == formShard && uint(f.bits-1) < scatter.MaxBits
}

// ObjectID returns the key of id in form f, the same 12 bytes with the top
// S bits changed. It returns an error wrapping
// [github.com/idkit-go/idkit/generator.ErrInvalidConfig] for an invalid
// f or the bit-reversed form, which ObjectIDs do not take.
func (f Form) ObjectID(id ObjectID) (ObjectID, error) {
	return f.objectID(id)
}

// OrderedObjectID returns the ObjectID whose key in form f is key: the
// inverse of [Form.ObjectID], with the same errors.
func (f Form) OrderedObjectID(key ObjectID) (ObjectID, error) {
	return f.objectID(key) // the shard form is its own inverse
}

func (f Form) objectID(id ObjectID) (ObjectID, error) {
	switch {
	case f.kind == formOrdered:
		return id, nil
	case f.valid():
		scatter.ObjectID((*[12]byte)(&id), uint(f.bits)) // id is a copy
		return id, nil
	}
	return ObjectID{}, f.checkBytes("ObjectID")
}

func (f Form) checkBytes(kind string) error {
	if f.kind == formReversed {
		return fmt.Errorf("%w: scatter form reversed is for Snowflakes; give an %s shard:S", sentinel.ErrInvalidConfig, kind)
	}
	return f.check()
}

// UUID returns the key of id, a version 7 UUID, in form f: the top S bits
// changed and the version set to 8, so the key is a version 8 UUID (the
// RFC 9562 version for custom layouts) of variant 10. It returns an error
// wrapping [ErrInvalidUUID] for a nonzero id that is not a version 7,
// variant 10 UUID, and one wrapping
// [github.com/idkit-go/idkit/generator.ErrInvalidConfig] for an invalid f
// or the bit-reversed form, which UUIDs do not take. The ordered form
// returns any id unchanged.
func (f Form) UUID(id UUID) (UUID, error) {
	return f.uuid(id, 7, 8)
}

// NewUUID returns a new version 7 UUID ([NewUUIDv7]) in form f: for a
// shard form, the same key as f.UUID(NewUUIDv7()), made from the UUID's
// words before they are written, at the cost of a few instructions. It
// returns the errors of [Form.UUID] for a form UUIDs do not take.
func (f Form) NewUUID() (id UUID, err error) {
	err = f.newUUID(&id)
	return id, err
}

// newUUID writes NewUUID's UUID into *id, or leaves it zero and returns
// the error. NewUUID, which only calls it, inlines into its caller, so the
// UUID is written straight into the caller's frame (a NewUUID that called
// NextWords itself, and did not inline, measured 1 to 2 ns slower).
func (f Form) newUUID(id *UUID) error {
	if f.kind != formOrdered && !f.valid() {
		return f.checkBytes("UUID")
	}
	// One call of the generator for both forms: ShardBits is 0 for the
	// ordered form, which NextWords makes as NewUUIDv7 does.
	hi, lo := uuidGen.NextWords(uint(f.ShardBits()))
	putUUID(id, hi, lo)
	return nil
}

// OrderedUUID returns the version 7 UUID whose key in form f is key: the
// inverse of [Form.UUID]. A nonzero key that is not a version 8, variant
// 10 UUID gives an error wrapping [ErrInvalidUUID]; other errors are those
// of Form.UUID.
func (f Form) OrderedUUID(key UUID) (UUID, error) {
	return f.uuid(key, 8, 7)
}

func (f Form) uuid(id UUID, from, to uint64) (UUID, error) {
	switch {
	case f.kind == formOrdered || (id.IsZero() && f.valid()):
		return id, nil
	case !f.valid():
		return UUID{}, f.checkBytes("UUID")
	case uint64(id[6]>>4) != from || id[8]>>6 != 2:
		return UUID{}, f.errVersion(id)
	}
	scatter.UUID((*[16]byte)(&id), uint(f.bits), to) // id is a copy
	return id, nil
}

// errVersion is the error of a UUID that is not of the version and
// variant f converts.
//
//go:noinline
func (f Form) errVersion(id UUID) error {
	return fmt.Errorf("%w: %s is version %d, variant %02b; form %s makes version 8 keys of version 7 UUIDs (variant 10)",
		ErrInvalidUUID, id, id[6]>>4, id[8]>>6, f)
}

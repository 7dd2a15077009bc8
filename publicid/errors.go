package publicid

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/idkit-go/idkit/internal/sentinel"
	"github.com/idkit-go/idkit/types"
)

// Errors. Every failure of [Codec.Decode] and [DecodeTypeID] wraps
// [ErrInvalid] and one of the sentinels that says why; test with
// [errors.Is].
var (
	// ErrInvalid is wrapped by every failure to decode a public ID.
	ErrInvalid = errors.New("publicid: invalid public ID")
	// ErrWrongPrefix reports a public ID without the codec's prefix, with
	// another prefix, or with a prefix where the codec has none.
	ErrWrongPrefix = errors.New("publicid: wrong prefix")
	// ErrLength reports a public ID with too few or too many characters
	// after its prefix.
	ErrLength = errors.New("publicid: wrong length")
	// ErrAlphabet reports a character that is not one of the 32 lower-case
	// digits 0-9 and a-z without i, l, o and u.
	ErrAlphabet = errors.New("publicid: character outside the alphabet")
	// ErrNonCanonical reports digits that no encoder writes: digits that
	// carry more bits than the ID has (a first digit too large), or digits
	// that decrypt to an ID [Codec.Encode] refuses (a zero ID, a negative
	// Snowflake).
	ErrNonCanonical = errors.New("publicid: non-canonical digits")
	// ErrUnknownKey reports a public ID made with a key the codec does not
	// hold.
	ErrUnknownKey = errors.New("publicid: unknown key")
	// ErrUnsupportedUUID reports a UUID that has no TypeID form (see
	// [EncodeTypeID]): not one of RFC 9562's versions 1 to 8 with the
	// variant bits 10, such as the nil and max UUIDs.
	ErrUnsupportedUUID = errors.New("publicid: UUID has no TypeID form")
	// ErrInvalidConfig reports a bad prefix or key ring given to [New], or
	// a codec whose first key cannot make TypeIDs given to [EncodeTypeID].
	// It is the value of generator.ErrInvalidConfig, named here as well
	// because this package does not import generator.
	ErrInvalidConfig = sentinel.ErrInvalidConfig
)

// errUnsupported is EncodeTypeID's error for a UUID outside its domain.
func errUnsupported(id types.UUID) error {
	return fmt.Errorf("%w: %v is not an RFC 9562 UUID of version 1 to 8 (variant bits 10)", ErrUnsupportedUUID, id)
}

// errTypeIDKey is EncodeTypeID's error for an encoding key whose digit
// does not fit a TypeID's first digit.
func errTypeIDKey(id byte) error {
	return fmt.Errorf("%w: publicid: the encoding key %q cannot make TypeIDs: a TypeID's first digit, which names its key, is 0-7", ErrInvalidConfig, string(id))
}

// decodeError is a decoding failure: it wraps ErrInvalid and reason.
type decodeError struct {
	reason error
	msg    string
}

func (e *decodeError) Error() string { return e.msg }

func (e *decodeError) Is(target error) bool { return target == ErrInvalid || target == e.reason }

// invalid returns a decodeError for input s; detail says what was wrong.
func invalid(reason error, s, detail string) error {
	return &decodeError{reason, "publicid: invalid public ID " + quote(s) + ": " + detail}
}

// quote quotes s for an error message, at most its first 80 bytes.
func quote(s string) string {
	if len(s) <= 80 {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:80]) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

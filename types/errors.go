package types

import (
	"errors"
	"strconv"
)

// Sentinel errors. Every parse, unmarshal and scan failure of a type wraps
// that type's sentinel, so callers test with [errors.Is]; the message names
// what was wrong with the input, quoting at most its first 32 bytes.
var (
	// ErrInvalidObjectID is wrapped by every failure to parse, unmarshal,
	// scan or decode an [ObjectID] or [NullObjectID].
	ErrInvalidObjectID = errors.New("types: invalid ObjectID")

	// ErrInvalidSnowflake is wrapped by every failure to parse, unmarshal,
	// scan or decode a [Snowflake] or [NullSnowflake], and by the encoders
	// that refuse a negative Snowflake.
	ErrInvalidSnowflake = errors.New("types: invalid Snowflake")

	// ErrNull is wrapped, together with the type's sentinel, when NULL (SQL
	// NULL, or Spanner's) is scanned or decoded into a non-nullable ID. Use
	// [NullObjectID] or [NullSnowflake] for nullable columns.
	ErrNull = errors.New("types: NULL into a non-nullable ID (use the Null form)")

	// ErrZeroID is wrapped by the Value, MarshalBSONValue and EncodeSpanner
	// methods of a zero [ObjectID] or [Snowflake] (and of a valid Null form
	// holding one): a zero ID means "no ID" and is never written to a
	// database. To store NULL, use an invalid [NullObjectID] or
	// [NullSnowflake].
	ErrZeroID = errors.New("types: zero ID is not a key")

	// ErrNotAddressable reports a zero key that a filler (gormplugin's or
	// mongocompat's) cannot set, because its value was passed by value
	// rather than by pointer. Both packages return this same value.
	ErrNotAddressable = errors.New("idkit: cannot set the key of a value passed by value (pass a pointer)")
)

// maxQuoted is how many bytes of a bad input an error message quotes.
const maxQuoted = 32

// quoteInput quotes s for an error message: all of it when short, else its
// first maxQuoted bytes followed by its length, so a huge input never makes
// a huge message.
func quoteInput[T string | []byte](s T) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(string(s))
	}
	return strconv.Quote(string(s[:maxQuoted])) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

package types

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
)

// Snowflake is a 63-bit, time-ordered ID stored as a signed 64-bit integer.
// Its bit layout (time, node and sequence fields, epoch and time unit) is not
// part of the value: decode it with a layout from the generator package. The
// zero value means "no ID".
//
// A Snowflake is never negative: every decoder rejects a negative number with
// an error wrapping [ErrInvalidSnowflake] that says "negative", and the
// encoders that can fail refuse one. String and the text encoders write a
// negative value with its sign, for display only.
type Snowflake int64

// IsZero reports whether s is the zero (unset) Snowflake.
func (s Snowflake) IsZero() bool { return s == 0 }

// ParseSnowflake parses the decimal form of a Snowflake: 1 to 19 ASCII
// digits with no sign or spaces, at most math.MaxInt64. A Snowflake is never
// negative, so "-5" is an error that says so. Any other input returns zero
// and an error wrapping [ErrInvalidSnowflake].
func ParseSnowflake(s string) (Snowflake, error) {
	return parseDecimal(s)
}

// MustParseSnowflake is like [ParseSnowflake] but panics on bad input. It is
// meant for constants in tests and examples.
func MustParseSnowflake(s string) Snowflake {
	id, err := ParseSnowflake(s)
	if err != nil {
		panic(err)
	}
	return id
}

// parseDecimal parses 1 to 19 ASCII digits into a non-negative int64. It is
// the one decimal parser of text, JSON, SQL, BSON and GraphQL.
func parseDecimal[T string | []byte](s T) (Snowflake, error) {
	if len(s) == 0 || len(s) > 19 {
		return 0, errDecimal(s)
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, errDecimal(s)
		}
		n = n*10 + uint64(d)
	}
	if n > math.MaxInt64 {
		return 0, errDecimal(s)
	}
	return Snowflake(n), nil
}

// errDecimal says why s is not a Snowflake, quoting a bounded prefix of it.
// It is out of line to keep fmt off parseDecimal's fast path.
//
//go:noinline
func errDecimal[T string | []byte](s T) error {
	q := quoteInput(s)
	switch {
	case len(s) == 0:
		return fmt.Errorf("%w: empty, want decimal digits", ErrInvalidSnowflake)
	case s[0] == '-' && allDigits(s[1:]):
		return fmt.Errorf("%w: %s is negative; a Snowflake is never negative", ErrInvalidSnowflake, q)
	case allDigits(s):
		return fmt.Errorf("%w: %s overflows int64", ErrInvalidSnowflake, q)
	default:
		return fmt.Errorf("%w: %s is not a decimal number", ErrInvalidSnowflake, q)
	}
}

func allDigits[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0
}

// errNegative is the error of every encoder that refuses a negative
// Snowflake and of every decoder given a negative number.
//
//go:noinline
func errNegative(v int64) error {
	return fmt.Errorf("%w: %d is negative; a Snowflake is never negative", ErrInvalidSnowflake, v)
}

// snowflakeOf returns x as a Snowflake, or for a negative x an error
// wrapping [ErrInvalidSnowflake]: the integer rule of every decoder.
func snowflakeOf[T int | int32 | int64](x T) (Snowflake, error) {
	if x < 0 {
		return 0, errNegative(int64(x))
	}
	return Snowflake(x), nil
}

// snowflakeOfFloat returns f as a Snowflake if it is a whole number in
// [0, 2^53), where a float64 holds every integer exactly, else an error
// wrapping [ErrInvalidSnowflake] that names f as what (such as "GraphQL
// float"): the rule of every decoder given a floating-point number.
func snowflakeOfFloat(what string, f float64) (Snowflake, error) {
	if f < 0 {
		return 0, fmt.Errorf("%w: %s %v is negative; a Snowflake is never negative", ErrInvalidSnowflake, what, f)
	}
	if f != math.Trunc(f) || f >= 1<<53 {
		return 0, fmt.Errorf("%w: %s %v is not a whole number below 2^53", ErrInvalidSnowflake, what, f)
	}
	return Snowflake(f), nil
}

// String returns the decimal form of s.
func (s Snowflake) String() string { return strconv.FormatInt(int64(s), 10) }

// Compare returns -1, 0 or +1 as s sorts before, equal to or after other.
func (s Snowflake) Compare(other Snowflake) int { return cmp.Compare(s, other) }

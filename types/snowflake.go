package types

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
)

// Snowflake is a 63-bit, time-ordered ID stored as a signed 64-bit integer.
//
// Its bit layout (time, node and sequence fields, epoch and time unit) is not
// part of the value: decode it with a layout from the generator package. The
// zero value means "no ID" and is what [Snowflake.IsZero] reports.
type Snowflake int64

// IsZero reports whether s is the zero (unset) Snowflake.
func (s Snowflake) IsZero() bool { return s == 0 }

// Int64 returns s as an int64.
func (s Snowflake) Int64() int64 { return int64(s) }

// ParseSnowflake parses the decimal form of a Snowflake. A Snowflake is never
// negative; signs, spaces, other digits and values above math.MaxInt64 return
// an error wrapping [ErrInvalidSnowflake].
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

// parseDecimal parses 1 to 19 ASCII digits into a non-negative int64.
func parseDecimal[T string | []byte](s T) (Snowflake, error) {
	if len(s) == 0 || len(s) > 19 {
		return 0, fmt.Errorf("%w: %q is not 1 to 19 decimal digits", ErrInvalidSnowflake, string(s))
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, fmt.Errorf("%w: %q is not a decimal number", ErrInvalidSnowflake, string(s))
		}
		n = n*10 + uint64(d)
	}
	if n > math.MaxInt64 {
		return 0, fmt.Errorf("%w: %q overflows int64", ErrInvalidSnowflake, string(s))
	}
	return Snowflake(n), nil
}

// String returns the decimal form of s.
func (s Snowflake) String() string { return strconv.FormatInt(int64(s), 10) }

// Compare returns -1, 0 or +1 as s sorts before, equal to or after other.
func (s Snowflake) Compare(other Snowflake) int { return cmp.Compare(s, other) }

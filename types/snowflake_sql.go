package types

import (
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math"
)

var (
	_ driver.Valuer = Snowflake(0)
	_ sql.Scanner   = (*Snowflake)(nil)
)

// Value implements [database/sql/driver.Valuer]: a BIGINT (int64). A zero
// Snowflake returns an error wrapping [ErrZeroID] and a negative one an error
// wrapping [ErrInvalidSnowflake], each with a non-nil value for GORM's sake,
// as [ObjectID.Value] explains.
func (s Snowflake) Value() (driver.Value, error) {
	if s <= 0 {
		if s == 0 {
			return refusedZeroSnowflake, errZeroSnowflake
		}
		return refusedNegative, errNegative(int64(s))
	}
	return int64(s), nil
}

// Scan implements [database/sql.Scanner]:
//
//   - int64, int32, int, uint64, uint32 (non-negative, at most
//     math.MaxInt64): the ID;
//   - string or []byte: decimal digits as [ParseSnowflake] reads them, as
//     some drivers return BIGINT text;
//   - nil (SQL NULL): an error wrapping [ErrInvalidSnowflake] and [ErrNull];
//   - anything else: an error wrapping [ErrInvalidSnowflake] naming the type.
//
// Negative numbers return an error that says "negative". Scanning 0 gives
// the zero Snowflake without error. On error s is left unchanged.
func (s *Snowflake) Scan(src any) error {
	var v Snowflake
	var err error
	switch x := src.(type) {
	case int64:
		v, err = snowflakeOf(x)
	case int32:
		v, err = snowflakeOf(x)
	case int:
		v, err = snowflakeOf(x)
	case uint64:
		if x > math.MaxInt64 {
			return fmt.Errorf("%w: %d overflows int64", ErrInvalidSnowflake, x)
		}
		v = Snowflake(x)
	case uint32:
		v = Snowflake(x)
	case []byte:
		v, err = parseDecimal(x)
	case string:
		v, err = parseDecimal(x)
	case nil:
		return fmt.Errorf("%w: %w", ErrInvalidSnowflake, ErrNull)
	default:
		return fmt.Errorf("%w: cannot scan %T", ErrInvalidSnowflake, src)
	}
	if err != nil {
		return err
	}
	*s = v
	return nil
}

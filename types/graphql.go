package types

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// This file implements gqlgen's marshaler methods (graphql.Marshaler and
// graphql.Unmarshaler in github.com/99designs/gqlgen/graphql) by signature,
// so the types serve as gqlgen custom scalars with no import. gqlgen hands
// UnmarshalGQL the decoded input: a string, a json.Number (variables), an
// int64 (integer literals in the query), an int, a float64, a bool or nil.

// gqlScalar is the method set gqlgen looks for on a custom scalar type.
type gqlScalar interface {
	MarshalGQL(w io.Writer)
	UnmarshalGQL(v any) error
}

var (
	_ gqlScalar = (*ObjectID)(nil)
	_ gqlScalar = (*Snowflake)(nil)
	_ gqlScalar = (*NullObjectID)(nil)
	_ gqlScalar = (*NullSnowflake)(nil)
)

// MarshalGQL writes id for gqlgen as a GraphQL string of 24 lower-case hex
// digits, the same text as JSON. Write errors are ignored, as gqlgen's own
// marshalers ignore them.
func (id ObjectID) MarshalGQL(w io.Writer) {
	var buf [26]byte
	buf[0], buf[25] = '"', '"'
	encodeHex(buf[1:25], &id)
	_, _ = w.Write(buf[:])
}

// UnmarshalGQL reads a gqlgen input value into id: a string of 24 hex
// digits; nil gives the zero ID. Other values, "" included (gqlgen passes
// "" for a nullable argument as a pointer to it, so it must not become a
// zero key), return an error wrapping [ErrInvalidObjectID] that quotes the
// input, and leave id unchanged.
func (id *ObjectID) UnmarshalGQL(v any) error {
	switch x := v.(type) {
	case string:
		return decodeHex(id, x)
	case nil:
		*id = ObjectID{}
		return nil
	default:
		return fmt.Errorf("%w: cannot unmarshal GraphQL %T %s, want a hex string", ErrInvalidObjectID, v, quoteInput(fmt.Sprint(v)))
	}
}

// MarshalGQL writes s for gqlgen as a GraphQL string of decimal digits,
// "1541815603606036480", never a number: GraphQL's Int is 32-bit and
// JavaScript clients lose precision above 2^53. Write errors are ignored, as
// gqlgen's own marshalers ignore them.
func (s Snowflake) MarshalGQL(w io.Writer) {
	var buf [22]byte
	b := append(buf[:0], '"')
	b = strconv.AppendInt(b, int64(s), 10)
	_, _ = w.Write(append(b, '"'))
}

// UnmarshalGQL reads a gqlgen input value into s: a string of decimal digits
// (as [ParseSnowflake] reads it), a json.Number holding an integer, an int or
// int64, or a float64 holding a whole number below 2^53; nil gives zero.
// Negative numbers and other values, "" included (see
// [ObjectID.UnmarshalGQL]), return an error wrapping [ErrInvalidSnowflake]
// that quotes the input, and leave s unchanged.
func (s *Snowflake) UnmarshalGQL(v any) error {
	var p Snowflake
	var err error
	switch x := v.(type) {
	case string:
		p, err = parseDecimal(x)
	case json.Number:
		p, err = parseDecimal(string(x))
	case int64:
		p, err = snowflakeOf(x)
	case int:
		p, err = snowflakeOf(x)
	case float64:
		p, err = snowflakeOfFloat("GraphQL float", x)
	case nil:
		*s = 0
		return nil
	default:
		return fmt.Errorf("%w: cannot unmarshal GraphQL %T %s", ErrInvalidSnowflake, v, quoteInput(fmt.Sprint(v)))
	}
	if err != nil {
		return err
	}
	*s = p
	return nil
}

package types

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/idkit-go/idkit/internal/nullable"
)

var (
	_ encoding.TextMarshaler   = Snowflake(0)
	_ encoding.TextUnmarshaler = (*Snowflake)(nil)
	_ json.Unmarshaler         = (*Snowflake)(nil)
)

// appendSnowflakeText appends the decimal form of s to b.
func appendSnowflakeText(b []byte, s Snowflake) []byte {
	return strconv.AppendInt(b, int64(s), 10)
}

// MarshalText implements [encoding.TextMarshaler]: the decimal form, which
// encoding/json writes as a JSON string, since JavaScript numbers lose
// precision above 2^53.
func (s Snowflake) MarshalText() ([]byte, error) {
	return appendSnowflakeText(make([]byte, 0, 20), s), nil
}

// UnmarshalText implements [encoding.TextUnmarshaler] with the rules of
// [ParseSnowflake]; empty text gives zero. On error s is left unchanged.
func (s *Snowflake) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*s = 0
		return nil
	}
	v, err := parseDecimal(text)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// UnmarshalJSON implements [encoding/json.Unmarshaler]. It accepts a JSON
// string of decimal digits (JSON escapes such as "\u0031" included), a bare
// JSON integer, and null or "" for zero, with JSON whitespace around any of
// them. Negative numbers, fractions, exponents and other input return an
// error wrapping [ErrInvalidSnowflake] and leave s unchanged.
func (s *Snowflake) UnmarshalJSON(data []byte) error {
	data = nullable.TrimJSONSpace(data)
	if string(data) == "null" {
		*s = 0
		return nil
	}
	if len(data) >= 2 && data[0] == '"' && data[len(data)-1] == '"' {
		inner := data[1 : len(data)-1]
		if bytes.IndexByte(inner, '\\') >= 0 {
			var str string
			if err := json.Unmarshal(data, &str); err != nil {
				return fmt.Errorf("%w: malformed JSON string %s", ErrInvalidSnowflake, quoteInput(data))
			}
			return setJSONDecimal(s, str)
		}
		if len(inner) == 0 {
			*s = 0
			return nil
		}
		data = inner
	}
	return setJSONDecimal(s, data)
}

// setJSONDecimal parses the decimal text of a JSON value into s.
func setJSONDecimal[T string | []byte](s *Snowflake, text T) error {
	v, err := parseDecimal(text)
	if err != nil {
		return fmt.Errorf("%w (JSON)", err)
	}
	*s = v
	return nil
}

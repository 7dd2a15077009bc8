package types

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"strconv"
)

var (
	_ encoding.TextMarshaler   = Snowflake(0)
	_ encoding.TextAppender    = Snowflake(0)
	_ encoding.TextUnmarshaler = (*Snowflake)(nil)
	_ json.Unmarshaler         = (*Snowflake)(nil)
)

// AppendText implements [encoding.TextAppender]: it appends the decimal form.
func (s Snowflake) AppendText(b []byte) ([]byte, error) {
	return strconv.AppendInt(b, int64(s), 10), nil
}

// MarshalText implements [encoding.TextMarshaler]: the decimal form.
// encoding/json uses it too, so a Snowflake is a JSON string of digits,
// "1541815603606036480", because JavaScript numbers lose precision above
// 2^53. There is deliberately no MarshalJSON method: encoding/json
// re-validates a MarshalJSON result, and the text path is faster.
func (s Snowflake) MarshalText() ([]byte, error) {
	return s.AppendText(make([]byte, 0, 20))
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

// UnmarshalJSON implements [encoding/json.Unmarshaler]. It accepts a decimal
// string, a bare JSON integer, and null or "" for zero. Fractions, exponents,
// negative numbers and other input return an error wrapping
// [ErrInvalidSnowflake] and leave s unchanged.
func (s *Snowflake) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		*s = 0
		return nil
	}
	if len(data) >= 2 && data[0] == '"' && data[len(data)-1] == '"' {
		data = data[1 : len(data)-1]
		if len(data) == 0 {
			*s = 0
			return nil
		}
	}
	v, err := parseDecimal(data)
	if err != nil {
		return fmt.Errorf("%w (JSON)", err)
	}
	*s = v
	return nil
}

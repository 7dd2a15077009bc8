package types

import (
	"encoding"
	"encoding/json"
	"fmt"

	"github.com/idkit-go/idkit/internal/nullable"
)

var (
	_ encoding.TextMarshaler   = UUID{}
	_ encoding.TextUnmarshaler = (*UUID)(nil)
	_ json.Unmarshaler         = (*UUID)(nil)
)

// MarshalText implements [encoding.TextMarshaler]: the canonical lower-case
// form, which encoding/json writes as a string. The zero UUID is all zeros
// (use the omitzero option or [NullUUID] to leave it out).
func (id UUID) MarshalText() ([]byte, error) {
	b := make([]byte, 36)
	encodeUUID(b, &id)
	return b, nil
}

// UnmarshalText implements [encoding.TextUnmarshaler]: it reads what
// [ParseUUID] reads; empty text gives the zero UUID. Other input returns an
// error wrapping [ErrInvalidUUID] and leaves id unchanged.
func (id *UUID) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*id = UUID{}
		return nil
	}
	return decodeUUIDBytes(id, text)
}

// UnmarshalJSON implements [encoding/json.Unmarshaler]. It accepts a string
// that [ParseUUID] reads (JSON escapes included), and null or "" for the
// zero UUID, with JSON whitespace around any of them. Other input returns an
// error wrapping [ErrInvalidUUID] and leaves id unchanged.
func (id *UUID) UnmarshalJSON(data []byte) error {
	data = nullable.TrimJSONSpace(data)
	n := len(data)
	switch {
	case (n == 38 || n == 34) && data[0] == '"' && data[n-1] == '"':
		return decodeUUIDBytes(id, data[1:n-1])
	case string(data) == "null" || string(data) == `""`:
		*id = UUID{}
		return nil
	case n > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("%w: malformed JSON string %s", ErrInvalidUUID, quoteInput(data))
		}
		return decodeUUID(id, s)
	default:
		return fmt.Errorf("%w: JSON %s is not a string", ErrInvalidUUID, quoteInput(data))
	}
}

var (
	_ encoding.BinaryMarshaler   = UUID{}
	_ encoding.BinaryUnmarshaler = (*UUID)(nil)
)

// MarshalBinary implements [encoding.BinaryMarshaler]: the 16 bytes. It
// never fails.
func (id UUID) MarshalBinary() ([]byte, error) {
	b := id
	return b[:], nil
}

// UnmarshalBinary implements [encoding.BinaryUnmarshaler]: it reads exactly
// 16 bytes; empty data gives the zero UUID. Other lengths return an error
// wrapping [ErrInvalidUUID] and leave id unchanged.
func (id *UUID) UnmarshalBinary(data []byte) error {
	switch len(data) {
	case 16:
		copy(id[:], data)
		return nil
	case 0:
		*id = UUID{}
		return nil
	default:
		return fmt.Errorf("%w: binary of %d bytes, want 16", ErrInvalidUUID, len(data))
	}
}

package types

import (
	"encoding"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/idkit-go/idkit/internal/nullable"
)

var (
	_ encoding.TextMarshaler   = ObjectID{}
	_ encoding.TextUnmarshaler = (*ObjectID)(nil)
	_ json.Unmarshaler         = (*ObjectID)(nil)
)

// appendObjectIDText appends the 24-digit hex form of id to b.
func appendObjectIDText(b []byte, id ObjectID) []byte {
	b = slices.Grow(b, 24)
	encodeHex(b[len(b):len(b)+24], &id)
	return b[:len(b)+24]
}

// MarshalText implements [encoding.TextMarshaler]: the 24-digit hex form,
// which encoding/json also writes as a JSON string. The zero ID is a string of
// zeros (use the omitzero option or [NullObjectID] to leave it out).
func (id ObjectID) MarshalText() ([]byte, error) {
	return appendObjectIDText(make([]byte, 0, 24), id), nil
}

// UnmarshalText implements [encoding.TextUnmarshaler]. It accepts exactly 24
// hex digits; empty text sets id to the zero ID. Other input returns an
// error wrapping [ErrInvalidObjectID] and leaves id unchanged.
func (id *ObjectID) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*id = ObjectID{}
		return nil
	}
	return decodeHexBytes(id, text)
}

// UnmarshalJSON implements [encoding/json.Unmarshaler]. It accepts a
// 24-digit hex string (JSON escapes included), MongoDB Extended JSON
// {"$oid": "<hex>"}, and null or "" for the zero ID, as mongo-driver's
// ObjectID does, with JSON whitespace around any of them. Other input
// returns an error wrapping [ErrInvalidObjectID] and leaves id unchanged.
func (id *ObjectID) UnmarshalJSON(data []byte) error {
	data = nullable.TrimJSONSpace(data)
	switch {
	case len(data) == 26 && data[0] == '"' && data[25] == '"':
		return decodeHexBytes(id, data[1:25])
	case string(data) == "null" || string(data) == `""`:
		*id = ObjectID{}
		return nil
	case len(data) > 0 && data[0] == '{':
		var ext struct {
			OID *string `json:"$oid"`
		}
		if err := json.Unmarshal(data, &ext); err != nil || ext.OID == nil {
			return fmt.Errorf("%w: JSON object without a \"$oid\" string: %s", ErrInvalidObjectID, quoteInput(data))
		}
		return decodeHex(id, *ext.OID)
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("%w: malformed JSON string %s", ErrInvalidObjectID, quoteInput(data))
		}
		return decodeHex(id, s)
	default:
		return fmt.Errorf("%w: JSON %s is not a hex string", ErrInvalidObjectID, quoteInput(data))
	}
}

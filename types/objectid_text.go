package types

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
)

var (
	_ encoding.TextMarshaler   = ObjectID{}
	_ encoding.TextAppender    = ObjectID{}
	_ encoding.TextUnmarshaler = (*ObjectID)(nil)
	_ json.Marshaler           = ObjectID{}
	_ json.Unmarshaler         = (*ObjectID)(nil)
)

// AppendText implements [encoding.TextAppender]: it appends the 24-digit hex
// form of id to b.
func (id ObjectID) AppendText(b []byte) ([]byte, error) {
	var buf [24]byte
	encodeHex(&buf, &id)
	return append(b, buf[:]...), nil
}

// MarshalText implements [encoding.TextMarshaler]: the 24-digit hex form.
func (id ObjectID) MarshalText() ([]byte, error) {
	return id.AppendText(make([]byte, 0, 24))
}

// UnmarshalText implements [encoding.TextUnmarshaler]. It accepts exactly 24
// hex digits; empty text sets id to [NilObjectID]. Other input returns an
// error wrapping [ErrInvalidObjectID] and leaves id unchanged.
func (id *ObjectID) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*id = NilObjectID
		return nil
	}
	return decodeHex(id, text)
}

// MarshalJSON implements [encoding/json.Marshaler]: the hex form as a JSON
// string, "0123456789abcdef01234567". The zero ID is written as a string of
// zeros too; use the omitzero option or [NullObjectID] to leave it out.
func (id ObjectID) MarshalJSON() ([]byte, error) {
	b := make([]byte, 26)
	b[0], b[25] = '"', '"'
	encodeHex((*[24]byte)(b[1:25]), &id)
	return b, nil
}

// UnmarshalJSON implements [encoding/json.Unmarshaler]. It accepts a
// 24-digit hex string, MongoDB Extended JSON {"$oid": "<hex>"}, and null or
// "" for [NilObjectID]. Other input returns an error wrapping
// [ErrInvalidObjectID] and leaves id unchanged.
func (id *ObjectID) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) == 26 && data[0] == '"' && data[25] == '"':
		return decodeHex(id, data[1:25])
	case string(data) == "null" || string(data) == `""`:
		*id = NilObjectID
		return nil
	case len(data) > 0 && data[0] == '{':
		var ext struct {
			OID *string `json:"$oid"`
		}
		if err := json.Unmarshal(data, &ext); err != nil || ext.OID == nil {
			return fmt.Errorf("%w: JSON object without a \"$oid\" string: %.40q", ErrInvalidObjectID, data)
		}
		return decodeHex(id, *ext.OID)
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("%w: malformed JSON string %.40q", ErrInvalidObjectID, data)
		}
		return decodeHex(id, s)
	default:
		return fmt.Errorf("%w: JSON %.40q is not a hex string", ErrInvalidObjectID, data)
	}
}

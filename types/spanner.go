package types

import (
	"encoding/base64"
	"fmt"

	"github.com/idkit-go/idkit/internal/nullable"
)

// This file holds the Cloud Spanner column encodings. The methods have the
// signatures of cloud.google.com/go/spanner's Encoder and Decoder, so the
// official client writes and reads the ID types (and pointers to them) in
// mutations, structs, keys and SQL parameters without this package
// importing it. The client hands DecodeSpanner a column value in its wire
// form: INT64 as decimal text, BYTES as standard base64, STRING as is, and
// NULL as a nil *string.

// spannerBytes is the client's wire form of BYTES: standard base64 with
// padding. Strict refuses non-zero padding bits, so that each value has
// exactly one encoding.
var spannerBytes = base64.StdEncoding.Strict()

// EncodeSpanner implements cloud.google.com/go/spanner's Encoder: the 12
// raw bytes as a []byte, for a BYTES(12) column. The zero ID is never
// written: it returns an error wrapping [ErrZeroID].
func (id ObjectID) EncodeSpanner() (any, error) {
	if id.IsZero() {
		return nil, errZeroObjectID
	}
	return id[:], nil
}

// DecodeSpanner implements cloud.google.com/go/spanner's Decoder:
//
//   - a string of 16 characters: a BYTES value (base64 of the 12 bytes);
//   - a string of 24 characters: the hex digits of a STRING(24) column;
//   - NULL: an error wrapping [ErrInvalidObjectID] and [ErrNull];
//   - anything else: an error wrapping [ErrInvalidObjectID].
//
// On error id is left unchanged.
func (id *ObjectID) DecodeSpanner(src any) error {
	s, err := spannerString(src, ErrInvalidObjectID)
	if err != nil {
		return err
	}
	switch len(s) {
	case 16:
		var b [12]byte
		if n, err := spannerBytes.Decode(b[:], []byte(s)); err != nil || n != 12 {
			return fmt.Errorf("%w: BYTES value %s is not base64 of 12 bytes", ErrInvalidObjectID, quoteInput(s))
		}
		*id = b
		return nil
	case 24:
		return decodeHex(id, s)
	default:
		return fmt.Errorf("%w: cannot decode a Spanner value of %d characters, want BYTES(12) or 24 hex digits", ErrInvalidObjectID, len(s))
	}
}

// EncodeSpanner implements cloud.google.com/go/spanner's Encoder: nil
// ([]byte, a BYTES NULL) when not valid, else [ObjectID.EncodeSpanner] of
// n.ID, which is an error wrapping [ErrZeroID] for a valid zero ID.
func (n NullObjectID) EncodeSpanner() (any, error) {
	return nullable.EncodeSpanner(n.ID, n.Valid, []byte(nil))
}

// DecodeSpanner implements cloud.google.com/go/spanner's Decoder: NULL sets
// n to NULL; anything else is decoded as by [ObjectID.DecodeSpanner] and
// makes n valid. On error n is left unchanged.
func (n *NullObjectID) DecodeSpanner(src any) error {
	return nullable.DecodeSpanner(&n.ID, &n.Valid, src)
}

// EncodeSpanner implements cloud.google.com/go/spanner's Encoder: an int64,
// for an INT64 column. A zero Snowflake returns an error wrapping
// [ErrZeroID] and a negative one an error wrapping [ErrInvalidSnowflake].
func (s Snowflake) EncodeSpanner() (any, error) {
	if s <= 0 {
		if s == 0 {
			return nil, errZeroSnowflake
		}
		return nil, errNegative(int64(s))
	}
	return int64(s), nil
}

// DecodeSpanner implements cloud.google.com/go/spanner's Decoder:
//
//   - decimal digits (an INT64 value, or a STRING column holding them), as
//     [ParseSnowflake] reads them;
//   - NULL: an error wrapping [ErrInvalidSnowflake] and [ErrNull];
//   - anything else: an error wrapping [ErrInvalidSnowflake].
//
// A negative number returns an error that says "negative"; decoding 0
// gives the zero Snowflake without error. On error s is left unchanged.
func (s *Snowflake) DecodeSpanner(src any) error {
	str, err := spannerString(src, ErrInvalidSnowflake)
	if err != nil {
		return err
	}
	v, err := parseDecimal(str)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// EncodeSpanner implements cloud.google.com/go/spanner's Encoder: nil
// (*int64, an INT64 NULL) when not valid, else [Snowflake.EncodeSpanner]
// of n.ID.
func (n NullSnowflake) EncodeSpanner() (any, error) {
	return nullable.EncodeSpanner(n.ID, n.Valid, (*int64)(nil))
}

// DecodeSpanner implements cloud.google.com/go/spanner's Decoder: NULL sets
// n to NULL; anything else is decoded as by [Snowflake.DecodeSpanner] and
// makes n valid. On error n is left unchanged.
func (n *NullSnowflake) DecodeSpanner(src any) error {
	return nullable.DecodeSpanner(&n.ID, &n.Valid, src)
}

// EncodeSpanner implements cloud.google.com/go/spanner's Encoder: the 16
// bytes as a []byte, for a BYTES(16) column. The zero UUID is never
// written: it returns an error wrapping [ErrZeroID]. For a column of
// Spanner's UUID type, pass the github.com/google/uuid conversion
// (uuid.UUID(id)), which the client sends as a UUID.
func (id UUID) EncodeSpanner() (any, error) {
	if id == (UUID{}) {
		return nil, errZeroUUID
	}
	return id[:], nil
}

// DecodeSpanner implements cloud.google.com/go/spanner's Decoder:
//
//   - a string of 24 characters: a BYTES value (base64 of the 16 bytes);
//   - a string of 36 or 32 characters: the text [ParseUUID] reads (a
//     STRING(36) column, or a column of Spanner's UUID type);
//   - NULL: an error wrapping [ErrInvalidUUID] and [ErrNull];
//   - anything else: an error wrapping [ErrInvalidUUID].
//
// On error id is left unchanged.
func (id *UUID) DecodeSpanner(src any) error {
	s, err := spannerString(src, ErrInvalidUUID)
	if err != nil {
		return err
	}
	switch len(s) {
	case 24:
		var b [18]byte // base64 of 16 bytes decodes into up to 18
		if n, err := spannerBytes.Decode(b[:], []byte(s)); err != nil || n != 16 {
			return fmt.Errorf("%w: BYTES value %s is not base64 of 16 bytes", ErrInvalidUUID, quoteInput(s))
		}
		*id = UUID(b[:16])
		return nil
	case 32, 36:
		return decodeUUID(id, s)
	default:
		return fmt.Errorf("%w: cannot decode a Spanner value of %d characters, want BYTES(16), 36 or 32 characters", ErrInvalidUUID, len(s))
	}
}

// EncodeSpanner implements cloud.google.com/go/spanner's Encoder: nil
// ([]byte, a BYTES NULL) when not valid, else [UUID.EncodeSpanner] of n.ID.
func (n NullUUID) EncodeSpanner() (any, error) {
	return nullable.EncodeSpanner(n.ID, n.Valid, []byte(nil))
}

// DecodeSpanner implements cloud.google.com/go/spanner's Decoder: NULL sets
// n to NULL; anything else is decoded as by [UUID.DecodeSpanner] and makes
// n valid. On error n is left unchanged.
func (n *NullUUID) DecodeSpanner(src any) error {
	return nullable.DecodeSpanner(&n.ID, &n.Valid, src)
}

// spannerString returns the string the client passes for a BYTES, INT64 or
// STRING value, or an error wrapping sentinel (and [ErrNull] for NULL).
func spannerString(src any, sentinel error) (string, error) {
	switch v := src.(type) {
	case string:
		return v, nil
	default:
		if nullable.IsSpannerNull(src) {
			return "", fmt.Errorf("%w: %w", sentinel, ErrNull)
		}
		return "", fmt.Errorf("%w: cannot decode a Spanner value of type %T", sentinel, src)
	}
}

package types

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
)

var (
	_ driver.Valuer    = NullSnowflake{}
	_ sql.Scanner      = (*NullSnowflake)(nil)
	_ json.Marshaler   = NullSnowflake{}
	_ json.Unmarshaler = (*NullSnowflake)(nil)
)

// NullSnowflake is a [Snowflake] that may be NULL, for nullable columns and
// optional document fields. Valid is false for NULL.
type NullSnowflake struct {
	ID    Snowflake
	Valid bool
}

// NewNullSnowflake returns a valid NullSnowflake holding id.
func NewNullSnowflake(id Snowflake) NullSnowflake { return NullSnowflake{ID: id, Valid: true} }

// IsZero reports whether n is NULL, for the json omitzero and bson omitempty
// options.
func (n NullSnowflake) IsZero() bool { return !n.Valid }

// Value implements [database/sql/driver.Valuer]: nil when not valid, else the
// int64.
func (n NullSnowflake) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.ID.Value()
}

// Scan implements [database/sql.Scanner]: nil sets n to NULL; anything else
// is scanned as by [Snowflake.Scan]. On error n is left unchanged.
func (n *NullSnowflake) Scan(src any) error {
	if src == nil {
		*n = NullSnowflake{}
		return nil
	}
	if err := n.ID.Scan(src); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// MarshalJSON implements [encoding/json.Marshaler]: null when not valid, else
// the decimal string.
func (n NullSnowflake) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	b, _ := n.ID.AppendText(append(make([]byte, 0, 26), '"'))
	return append(b, '"'), nil
}

// UnmarshalJSON implements [encoding/json.Unmarshaler]: null sets n to NULL;
// anything else is decoded as by [Snowflake.UnmarshalJSON] and makes n valid.
// On error n is left unchanged.
func (n *NullSnowflake) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		*n = NullSnowflake{}
		return nil
	}
	if err := n.ID.UnmarshalJSON(data); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// MarshalBSONValue encodes n as BSON null when not valid, else as an
// int64. The signature is that of mongo-driver v2's bson.ValueMarshaler.
func (n NullSnowflake) MarshalBSONValue() (typ byte, data []byte, err error) {
	if !n.Valid {
		return bsonNull, nil, nil
	}
	return n.ID.MarshalBSONValue()
}

// UnmarshalBSONValue decodes BSON null as NULL and anything else as by
// [Snowflake.UnmarshalBSONValue]. On error n is left unchanged.
func (n *NullSnowflake) UnmarshalBSONValue(typ byte, data []byte) error {
	if typ == bsonNull {
		*n = NullSnowflake{}
		return nil
	}
	if err := n.ID.UnmarshalBSONValue(typ, data); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

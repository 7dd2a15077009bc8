package types

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
)

var (
	_ driver.Valuer    = NullObjectID{}
	_ sql.Scanner      = (*NullObjectID)(nil)
	_ json.Marshaler   = NullObjectID{}
	_ json.Unmarshaler = (*NullObjectID)(nil)
)

// NullObjectID is an [ObjectID] that may be NULL, for nullable columns and
// optional document fields. Valid is false for NULL.
type NullObjectID struct {
	ID    ObjectID
	Valid bool
}

// NewNullObjectID returns a valid NullObjectID holding id.
func NewNullObjectID(id ObjectID) NullObjectID { return NullObjectID{ID: id, Valid: true} }

// IsZero reports whether n is NULL, for the json omitzero and bson omitempty
// options.
func (n NullObjectID) IsZero() bool { return !n.Valid }

// Value implements [database/sql/driver.Valuer]: nil when not valid, else the
// 12 raw bytes.
func (n NullObjectID) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.ID.Value()
}

// Scan implements [database/sql.Scanner]: nil sets n to NULL; anything else
// is scanned as by [ObjectID.Scan]. On error n is left unchanged.
func (n *NullObjectID) Scan(src any) error {
	if src == nil {
		*n = NullObjectID{}
		return nil
	}
	if err := n.ID.Scan(src); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// MarshalJSON implements [encoding/json.Marshaler]: null when not valid, else
// the hex string.
func (n NullObjectID) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	b, _ := n.ID.AppendText(append(make([]byte, 0, 26), '"'))
	return append(b, '"'), nil
}

// UnmarshalJSON implements [encoding/json.Unmarshaler]: null sets n to NULL;
// anything else is decoded as by [ObjectID.UnmarshalJSON] and makes n valid.
// On error n is left unchanged.
func (n *NullObjectID) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		*n = NullObjectID{}
		return nil
	}
	if err := n.ID.UnmarshalJSON(data); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// MarshalBSONValue encodes n as BSON null when not valid, else as an
// ObjectId. The signature is that of mongo-driver v2's bson.ValueMarshaler.
func (n NullObjectID) MarshalBSONValue() (typ byte, data []byte, err error) {
	if !n.Valid {
		return bsonNull, nil, nil
	}
	return n.ID.MarshalBSONValue()
}

// UnmarshalBSONValue decodes BSON null as NULL and anything else as by
// [ObjectID.UnmarshalBSONValue]. On error n is left unchanged.
func (n *NullObjectID) UnmarshalBSONValue(typ byte, data []byte) error {
	if typ == bsonNull {
		*n = NullObjectID{}
		return nil
	}
	if err := n.ID.UnmarshalBSONValue(typ, data); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

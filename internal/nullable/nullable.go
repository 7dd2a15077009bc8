// Package nullable is the one implementation of the NULL rules of idkit's
// nullable ID types (types.NullObjectID, types.NullSnowflake and
// sqltypes.NullHexObjectID). Each function takes the Null form's two
// fields: id (the ID, of type T) and valid. The ID's own methods do the
// encoding and decoding, so these add only the NULL rules: SQL NULL, JSON
// null or "", BSON null, GraphQL null or "" and Spanner NULL are NULL;
// anything else is decoded as by the ID type and makes the form valid; on
// error the form is left unchanged. It imports no idkit package.
package nullable

import (
	"database/sql/driver"
	"io"
)

// bsonNull is the BSON type byte of null.
const bsonNull byte = 0x0A

func setNull[T any](id *T, valid *bool) {
	var zero T
	*id, *valid = zero, false
}

// Value returns nil (SQL NULL) when not valid, else id.Value().
func Value[T driver.Valuer](id T, valid bool) (driver.Value, error) {
	if !valid {
		return nil, nil
	}
	return id.Value()
}

// Scan sets NULL for a nil src, else scans src into id and sets valid.
func Scan[T any, P interface {
	*T
	Scan(src any) error
}](id *T, valid *bool, src any) error {
	if src == nil {
		setNull(id, valid)
		return nil
	}
	if err := P(id).Scan(src); err != nil {
		return err
	}
	*valid = true
	return nil
}

// MarshalJSON returns null when not valid, else id's text, as appendText
// appends it, as a JSON string.
func MarshalJSON[T any](id T, valid bool, appendText func(b []byte, id T) []byte) ([]byte, error) {
	if !valid {
		return []byte("null"), nil
	}
	b := appendText(append(make([]byte, 0, 26), '"'), id)
	return append(b, '"'), nil
}

// UnmarshalJSON sets NULL for JSON null or "" (with any JSON whitespace
// around them), else decodes data into id and sets valid.
func UnmarshalJSON[T any, P interface {
	*T
	UnmarshalJSON(data []byte) error
}](id *T, valid *bool, data []byte) error {
	if NoJSONID(data) {
		setNull(id, valid)
		return nil
	}
	if err := P(id).UnmarshalJSON(data); err != nil {
		return err
	}
	*valid = true
	return nil
}

// MarshalBSONValue encodes BSON null when not valid, else id.
func MarshalBSONValue[T interface {
	MarshalBSONValue() (typ byte, data []byte, err error)
}](id T, valid bool) (byte, []byte, error) {
	if !valid {
		return bsonNull, nil, nil
	}
	return id.MarshalBSONValue()
}

// UnmarshalBSONValue sets NULL for BSON null, else decodes into id and sets
// valid.
func UnmarshalBSONValue[T any, P interface {
	*T
	UnmarshalBSONValue(typ byte, data []byte) error
}](id *T, valid *bool, typ byte, data []byte) error {
	if typ == bsonNull {
		setNull(id, valid)
		return nil
	}
	if err := P(id).UnmarshalBSONValue(typ, data); err != nil {
		return err
	}
	*valid = true
	return nil
}

// MarshalGQL writes null when not valid, else id.
func MarshalGQL[T interface{ MarshalGQL(w io.Writer) }](id T, valid bool, w io.Writer) {
	if !valid {
		_, _ = io.WriteString(w, "null")
		return
	}
	id.MarshalGQL(w)
}

// UnmarshalGQL sets NULL for nil and "", else reads v into id and sets
// valid.
func UnmarshalGQL[T any, P interface {
	*T
	UnmarshalGQL(v any) error
}](id *T, valid *bool, v any) error {
	if v == nil || v == "" {
		setNull(id, valid)
		return nil
	}
	if err := P(id).UnmarshalGQL(v); err != nil {
		return err
	}
	*valid = true
	return nil
}

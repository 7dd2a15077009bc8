package types

import (
	"database/sql/driver"
	"io"
)

// This file holds the logic that NullObjectID and NullSnowflake share. Each
// helper takes the Null form's two fields: id (the ID, of type T) and valid.
// The ID's own methods do the decoding, so the Null forms add only the NULL
// rules: SQL NULL, JSON null or "", BSON null and GraphQL null are NULL;
// anything else is decoded as by the ID type and makes the form valid; on
// error the form is left unchanged.

// idType is the set of ID types that have a Null form.
type idType interface{ ObjectID | Snowflake }

// idDecoder is what a pointer to an ID type provides to the helpers.
type idDecoder[T idType] interface {
	*T
	Scan(src any) error
	UnmarshalJSON(data []byte) error
	UnmarshalBSONValue(typ byte, data []byte) error
	UnmarshalGQL(v any) error
}

// idEncoder is what an ID type provides to the helpers.
type idEncoder interface {
	idType
	Value() (driver.Value, error)
	AppendText(b []byte) ([]byte, error)
	MarshalBSONValue() (typ byte, data []byte, err error)
	MarshalGQL(w io.Writer)
}

func setNull[T idType](id *T, valid *bool) {
	var zero T
	*id, *valid = zero, false
}

func nullValue[T idEncoder](id T, valid bool) (driver.Value, error) {
	if !valid {
		return nil, nil
	}
	return id.Value()
}

func nullScan[T idType, P idDecoder[T]](id *T, valid *bool, src any) error {
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

func nullMarshalJSON[T idEncoder](id T, valid bool) ([]byte, error) {
	if !valid {
		return []byte("null"), nil
	}
	b, err := id.AppendText(append(make([]byte, 0, 26), '"'))
	if err != nil {
		return nil, err
	}
	return append(b, '"'), nil
}

func nullUnmarshalJSON[T idType, P idDecoder[T]](id *T, valid *bool, data []byte) error {
	if jsonNoID(data) {
		setNull(id, valid)
		return nil
	}
	if err := P(id).UnmarshalJSON(data); err != nil {
		return err
	}
	*valid = true
	return nil
}

func nullMarshalBSONValue[T idEncoder](id T, valid bool) (byte, []byte, error) {
	if !valid {
		return bsonNull, nil, nil
	}
	return id.MarshalBSONValue()
}

func nullUnmarshalBSONValue[T idType, P idDecoder[T]](id *T, valid *bool, typ byte, data []byte) error {
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

func nullMarshalGQL[T idEncoder](id T, valid bool, w io.Writer) {
	if !valid {
		_, _ = io.WriteString(w, "null")
		return
	}
	id.MarshalGQL(w)
}

func nullUnmarshalGQL[T idType, P idDecoder[T]](id *T, valid *bool, v any) error {
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

package types

import (
	"database/sql"
	"database/sql/driver"
	"encoding"
	"encoding/json"
	"io"

	"github.com/idkit-go/idkit/internal/nullable"
)

var (
	_ driver.Valuer            = NullUUID{}
	_ sql.Scanner              = (*NullUUID)(nil)
	_ json.Marshaler           = NullUUID{}
	_ json.Unmarshaler         = (*NullUUID)(nil)
	_ encoding.TextMarshaler   = NullUUID{}
	_ encoding.TextUnmarshaler = (*NullUUID)(nil)
	_ gqlScalar                = (*NullUUID)(nil)
)

// NullUUID is a [UUID] that may be NULL, for nullable columns and optional
// fields, with the rules of [NullObjectID]: every decoder's form of "no
// value" makes it NULL (Valid false), and only an explicit nil UUID
// decodes to a valid zero, which Value then refuses.
type NullUUID struct {
	// The gorm:"-" tags keep GORM from taking NullUUID for a model when it
	// is a Scan or Pluck destination.
	ID    UUID `gorm:"-"`
	Valid bool `gorm:"-"`
}

// IsZero reports whether n is NULL, for the json omitzero and bson
// omitempty options.
func (n NullUUID) IsZero() bool { return !n.Valid }

// Value implements [database/sql/driver.Valuer]: nil (SQL NULL) when not
// valid, else [UUID.Value] of n.ID.
func (n NullUUID) Value() (driver.Value, error) { return nullable.Value(n.ID, n.Valid) }

// Scan implements [database/sql.Scanner]: nil sets n to NULL; anything else
// is scanned as by [UUID.Scan]. On error n is left unchanged.
func (n *NullUUID) Scan(src any) error { return nullable.Scan(&n.ID, &n.Valid, src) }

// MarshalText implements [encoding.TextMarshaler]: empty text when not
// valid, else the canonical form (so a NullUUID serves as a map key and
// with [flag.TextVar]).
func (n NullUUID) MarshalText() ([]byte, error) {
	if !n.Valid {
		return []byte{}, nil
	}
	return n.ID.MarshalText()
}

// UnmarshalText implements [encoding.TextUnmarshaler]: empty text sets n
// to NULL; anything else is read as by [ParseUUID] and makes n valid. On
// error, which wraps [ErrInvalidUUID], n is left unchanged.
func (n *NullUUID) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*n = NullUUID{}
		return nil
	}
	var id UUID
	if err := decodeUUIDBytes(&id, text); err != nil {
		return err
	}
	*n = NullUUID{ID: id, Valid: true}
	return nil
}

// MarshalJSON implements [encoding/json.Marshaler]: null when not valid,
// else the canonical string.
func (n NullUUID) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	b := make([]byte, 38)
	b[0], b[37] = '"', '"'
	encodeUUID(b[1:37], &n.ID)
	return b, nil
}

// UnmarshalJSON implements [encoding/json.Unmarshaler]: null and "" set n
// to NULL; anything else is decoded as by [UUID.UnmarshalJSON] and makes n
// valid. On error n is left unchanged.
func (n *NullUUID) UnmarshalJSON(data []byte) error {
	return nullable.UnmarshalJSON(&n.ID, &n.Valid, data)
}

// MarshalBSONValue encodes n as BSON null when not valid, else as
// [UUID.MarshalBSONValue] does.
func (n NullUUID) MarshalBSONValue() (typ byte, data []byte, err error) {
	return nullable.MarshalBSONValue(n.ID, n.Valid)
}

// UnmarshalBSONValue decodes BSON null as NULL and anything else as by
// [UUID.UnmarshalBSONValue]. On error n is left unchanged.
func (n *NullUUID) UnmarshalBSONValue(typ byte, data []byte) error {
	return nullable.UnmarshalBSONValue(&n.ID, &n.Valid, typ, data)
}

// MarshalGQL writes n for gqlgen: null when not valid, else as
// [UUID.MarshalGQL] does.
func (n NullUUID) MarshalGQL(w io.Writer) { nullable.MarshalGQL(n.ID, n.Valid, w) }

// UnmarshalGQL reads a gqlgen input value: nil and "" set n to NULL;
// anything else is read as by [UUID.UnmarshalGQL] and makes n valid. On
// error n is left unchanged.
func (n *NullUUID) UnmarshalGQL(v any) error { return nullable.UnmarshalGQL(&n.ID, &n.Valid, v) }

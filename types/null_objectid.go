package types

import (
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"io"

	"github.com/idkit-go/idkit/internal/nullable"
)

var (
	_ driver.Valuer    = NullObjectID{}
	_ sql.Scanner      = (*NullObjectID)(nil)
	_ json.Marshaler   = NullObjectID{}
	_ json.Unmarshaler = (*NullObjectID)(nil)
)

// NullObjectID is an [ObjectID] that may be NULL, for nullable columns and
// optional document fields. Valid is false for NULL. Each decoder's form of
// "no value" (SQL NULL, JSON null or "", BSON null, GraphQL null or "")
// makes it NULL, never a valid zero ID; only an explicit zero ID (24 zeros)
// decodes to a valid zero, which Value then refuses.
type NullObjectID struct {
	// The gorm:"-" tags keep GORM from taking NullObjectID for a model with
	// columns "id" and "valid" when it is a Scan or Pluck destination, so
	// that GORM reads the column through Scan.
	ID    ObjectID `gorm:"-"`
	Valid bool     `gorm:"-"`
}

// IsZero reports whether n is NULL, for the json omitzero and bson omitempty
// options.
func (n NullObjectID) IsZero() bool { return !n.Valid }

// Value implements [database/sql/driver.Valuer]: nil (SQL NULL) when not
// valid, else [ObjectID.Value] of n.ID, which is an error wrapping
// [ErrZeroID] for a valid zero ID.
func (n NullObjectID) Value() (driver.Value, error) { return nullable.Value(n.ID, n.Valid) }

// Scan implements [database/sql.Scanner]: nil sets n to NULL; anything else
// is scanned as by [ObjectID.Scan]. On error n is left unchanged.
func (n *NullObjectID) Scan(src any) error { return nullable.Scan(&n.ID, &n.Valid, src) }

// MarshalJSON implements [encoding/json.Marshaler]: null when not valid, else
// the hex string.
func (n NullObjectID) MarshalJSON() ([]byte, error) {
	return nullable.MarshalJSON(n.ID, n.Valid, appendObjectIDText)
}

// UnmarshalJSON implements [encoding/json.Unmarshaler]: null and "" (with
// any JSON whitespace around them) set n to NULL; anything else is decoded
// as by [ObjectID.UnmarshalJSON] and makes n valid. On error n is left
// unchanged.
func (n *NullObjectID) UnmarshalJSON(data []byte) error {
	return nullable.UnmarshalJSON(&n.ID, &n.Valid, data)
}

// MarshalBSONValue encodes n as BSON null when not valid, else as an
// ObjectId. The signature is that of mongo-driver v2's bson.ValueMarshaler.
func (n NullObjectID) MarshalBSONValue() (typ byte, data []byte, err error) {
	return nullable.MarshalBSONValue(n.ID, n.Valid)
}

// UnmarshalBSONValue decodes BSON null as NULL and anything else as by
// [ObjectID.UnmarshalBSONValue]. On error n is left unchanged.
func (n *NullObjectID) UnmarshalBSONValue(typ byte, data []byte) error {
	return nullable.UnmarshalBSONValue(&n.ID, &n.Valid, typ, data)
}

// MarshalGQL writes n for gqlgen: null when not valid, else as
// [ObjectID.MarshalGQL] does.
func (n NullObjectID) MarshalGQL(w io.Writer) { nullable.MarshalGQL(n.ID, n.Valid, w) }

// UnmarshalGQL reads a gqlgen input value: nil and "" set n to NULL;
// anything else is read as by [ObjectID.UnmarshalGQL] and makes n valid. On
// error n is left unchanged.
func (n *NullObjectID) UnmarshalGQL(v any) error { return nullable.UnmarshalGQL(&n.ID, &n.Valid, v) }

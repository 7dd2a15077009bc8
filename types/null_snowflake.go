package types

import (
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"io"

	"github.com/idkit-go/idkit/internal/nullable"
)

var (
	_ driver.Valuer    = NullSnowflake{}
	_ sql.Scanner      = (*NullSnowflake)(nil)
	_ json.Marshaler   = NullSnowflake{}
	_ json.Unmarshaler = (*NullSnowflake)(nil)
)

// NullSnowflake is a [Snowflake] that may be NULL, for nullable columns and
// optional document fields. Valid is false for NULL. Each decoder's form of
// "no value" (SQL NULL, JSON null or "", BSON null, GraphQL null or "")
// makes it NULL, never a valid zero ID; only an explicit zero ID (0)
// decodes to a valid zero, which Value then refuses.
type NullSnowflake struct {
	// The gorm:"-" tags keep GORM from taking NullSnowflake for a model with
	// columns "id" and "valid" when it is a Scan or Pluck destination, so
	// that GORM reads the column through Scan.
	ID    Snowflake `gorm:"-"`
	Valid bool      `gorm:"-"`
}

// IsZero reports whether n is NULL, for the json omitzero and bson omitempty
// options.
func (n NullSnowflake) IsZero() bool { return !n.Valid }

// Value implements [database/sql/driver.Valuer]: nil (SQL NULL) when not
// valid, else [Snowflake.Value] of n.ID, which is an error wrapping
// [ErrZeroID] for a valid zero ID.
func (n NullSnowflake) Value() (driver.Value, error) { return nullable.Value(n.ID, n.Valid) }

// Scan implements [database/sql.Scanner]: nil sets n to NULL; anything else
// is scanned as by [Snowflake.Scan]. On error n is left unchanged.
func (n *NullSnowflake) Scan(src any) error { return nullable.Scan(&n.ID, &n.Valid, src) }

// MarshalJSON implements [encoding/json.Marshaler]: null when not valid, else
// the decimal string.
func (n NullSnowflake) MarshalJSON() ([]byte, error) {
	return nullable.MarshalJSON(n.ID, n.Valid, appendSnowflakeText)
}

// UnmarshalJSON implements [encoding/json.Unmarshaler]: null and "" (with
// any JSON whitespace around them) set n to NULL; anything else is decoded
// as by [Snowflake.UnmarshalJSON] and makes n valid. On error n is left
// unchanged.
func (n *NullSnowflake) UnmarshalJSON(data []byte) error {
	return nullable.UnmarshalJSON(&n.ID, &n.Valid, data)
}

// MarshalBSONValue encodes n as BSON null when not valid, else as an
// int64. The signature is that of mongo-driver v2's bson.ValueMarshaler.
func (n NullSnowflake) MarshalBSONValue() (typ byte, data []byte, err error) {
	return nullable.MarshalBSONValue(n.ID, n.Valid)
}

// UnmarshalBSONValue decodes BSON null as NULL and anything else as by
// [Snowflake.UnmarshalBSONValue]. On error n is left unchanged.
func (n *NullSnowflake) UnmarshalBSONValue(typ byte, data []byte) error {
	return nullable.UnmarshalBSONValue(&n.ID, &n.Valid, typ, data)
}

// MarshalGQL writes n for gqlgen: null when not valid, else as
// [Snowflake.MarshalGQL] does.
func (n NullSnowflake) MarshalGQL(w io.Writer) { nullable.MarshalGQL(n.ID, n.Valid, w) }

// UnmarshalGQL reads a gqlgen input value: nil and "" set n to NULL;
// anything else is read as by [Snowflake.UnmarshalGQL] and makes n valid. On
// error n is left unchanged.
func (n *NullSnowflake) UnmarshalGQL(v any) error { return nullable.UnmarshalGQL(&n.ID, &n.Valid, v) }

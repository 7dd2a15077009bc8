package sqltypes

import (
	"database/sql"
	"database/sql/driver"
	"encoding/json"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/internal/nullable"
)

var (
	_ driver.Valuer    = NullHexObjectID{}
	_ sql.Scanner      = (*NullHexObjectID)(nil)
	_ json.Marshaler   = NullHexObjectID{}
	_ json.Unmarshaler = (*NullHexObjectID)(nil)
)

// NullHexObjectID is a nullable [HexObjectID] for nullable hex-text columns:
// Valid false is SQL NULL and JSON null.
type NullHexObjectID struct {
	// The gorm:"-" tags keep GORM from taking NullHexObjectID for a model with
	// columns "id" and "valid" when it is a Scan or Pluck destination, so
	// that GORM reads the column through Scan.
	ID    HexObjectID `gorm:"-"`
	Valid bool        `gorm:"-"`
}

// IsZero reports whether n is NULL.
func (n NullHexObjectID) IsZero() bool { return !n.Valid }

// Value returns nil for NULL, otherwise [HexObjectID.Value] of n.ID: the 24
// hex characters, or an error wrapping
// [github.com/idkit-go/idkit/types.ErrZeroID] for a valid nil ObjectID.
func (n NullHexObjectID) Value() (driver.Value, error) { return nullable.Value(n.ID, n.Valid) }

// Scan reads NULL as invalid and anything else as [HexObjectID.Scan] does;
// errors wrap [github.com/idkit-go/idkit/types.ErrInvalidObjectID] and leave
// n unchanged.
func (n *NullHexObjectID) Scan(src any) error { return nullable.Scan(&n.ID, &n.Valid, src) }

// MarshalJSON returns null for NULL, otherwise the ID as a JSON string.
func (n NullHexObjectID) MarshalJSON() ([]byte, error) {
	return nullable.MarshalJSON(n.ID, n.Valid, appendHex)
}

// UnmarshalJSON follows [types.NullObjectID.UnmarshalJSON]: null and ""
// (with any JSON whitespace around them) are NULL, anything else is read as
// [HexObjectID.UnmarshalJSON] reads it and makes n valid; n is unchanged on
// error.
func (n *NullHexObjectID) UnmarshalJSON(b []byte) error {
	return nullable.UnmarshalJSON(&n.ID, &n.Valid, b)
}

// GormDataType returns GORM's "string" data type, as [HexObjectID] does.
func (NullHexObjectID) GormDataType() string { return string(schema.String) }

// GormDBDataType returns the same column type as [HexObjectID.GormDBDataType];
// the column is nullable unless it is a primary key or tagged not null.
func (NullHexObjectID) GormDBDataType(db *gorm.DB, f *schema.Field) string {
	return hexGormType(dialectOf(db), f)
}

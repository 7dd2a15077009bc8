package sqltypes

import (
	"database/sql"
	"database/sql/driver"
	"encoding/json"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/types"
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
func (n NullHexObjectID) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.ID.Value()
}

// Scan reads NULL as invalid and anything else as [HexObjectID.Scan] does;
// errors wrap [github.com/idkit-go/idkit/types.ErrInvalidObjectID] and leave
// n unchanged.
func (n *NullHexObjectID) Scan(src any) error {
	if src == nil {
		*n = NullHexObjectID{}
		return nil
	}
	var id HexObjectID
	if err := id.Scan(src); err != nil {
		return err
	}
	*n = NullHexObjectID{ID: id, Valid: true}
	return nil
}

// MarshalJSON returns null for NULL, otherwise the ID as a JSON string.
func (n NullHexObjectID) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	b, _ := n.ID.MarshalText()
	return append(append(append(make([]byte, 0, 26), '"'), b...), '"'), nil
}

// UnmarshalJSON follows [types.NullObjectID.UnmarshalJSON]: null and ""
// (with any JSON whitespace around them) are NULL, anything else is read as
// [HexObjectID.UnmarshalJSON] reads it and makes n valid; n is unchanged on
// error.
func (n *NullHexObjectID) UnmarshalJSON(b []byte) error {
	v := types.NullObjectID{ID: types.ObjectID(n.ID), Valid: n.Valid}
	if err := v.UnmarshalJSON(b); err != nil {
		return err
	}
	*n = NullHexObjectID{ID: HexObjectID(v.ID), Valid: v.Valid}
	return nil
}

// GormDataType returns GORM's "string" data type, as [HexObjectID] does.
func (NullHexObjectID) GormDataType() string { return string(schema.String) }

// GormDBDataType returns the same column type as [HexObjectID.GormDBDataType];
// the column is nullable unless it is a primary key or tagged not null.
func (NullHexObjectID) GormDBDataType(db *gorm.DB, f *schema.Field) string {
	return hexGormType(dialectOf(db), f)
}

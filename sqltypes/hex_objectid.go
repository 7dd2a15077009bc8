package sqltypes

import (
	"database/sql"
	"database/sql/driver"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/idkit-go/idkit/dialect"
	"github.com/idkit-go/idkit/types"
)

var (
	_ driver.Valuer            = HexObjectID{}
	_ sql.Scanner              = (*HexObjectID)(nil)
	_ json.Unmarshaler         = (*HexObjectID)(nil)
	_ encoding.TextMarshaler   = HexObjectID{}
	_ encoding.TextUnmarshaler = (*HexObjectID)(nil)
)

// HexObjectID is a [types.ObjectID] stored in SQL as 24 lower-case hex
// characters instead of 12 raw bytes, for schemas that already store
// ObjectIDs as text. Convert freely: types.ObjectID(h), HexObjectID(id).
// Text, JSON and the zero value behave as for types.ObjectID. The GORM plugin
// fills HexObjectID primary keys as it fills types.ObjectID ones.
type HexObjectID types.ObjectID

// String returns the 24 lower-case hex digits of h.
func (h HexObjectID) String() string { return types.ObjectID(h).Hex() }

// IsZero reports whether h is the nil ObjectID.
func (h HexObjectID) IsZero() bool { return types.ObjectID(h).IsZero() }

// errZeroHex is HexObjectID.Value's error for the nil ObjectID.
var errZeroHex = fmt.Errorf("%w: zero HexObjectID has no SQL value: fill it before the INSERT (with GORM: db.Use(gormplugin.New())), or use NullHexObjectID for a nullable column", types.ErrZeroID)

// Value returns h as a 24-character lower-case hex string, its one SQL
// representation. The nil ObjectID is never written as a key: Value returns
// an error wrapping [types.ErrZeroID] (store NULL with an invalid
// [NullHexObjectID]), with the same non-nil value [types.ObjectID.Value]
// returns for it, which only GORM reads.
func (h HexObjectID) Value() (driver.Value, error) {
	if h.IsZero() {
		v, _ := types.ObjectID{}.Value()
		return v, errZeroHex
	}
	return types.ObjectID(h).Hex(), nil
}

// Scan reads 24 hex digits (string or []byte, either case) or 12 raw bytes
// (only as []byte), as [types.ObjectID.Scan] does. NULL or any other input,
// including a string that is not 24 characters, is an error wrapping
// [types.ErrInvalidObjectID] (and [types.ErrNull] for NULL); h is unchanged
// on error.
func (h *HexObjectID) Scan(src any) error { return (*types.ObjectID)(h).Scan(src) }

// MarshalText returns the 24 hex digits of h; encoding/json uses it, so h
// is a JSON string of hex digits.
func (h HexObjectID) MarshalText() ([]byte, error) { return types.ObjectID(h).MarshalText() }

// appendHex appends the 24 lower-case hex digits of h to b.
func appendHex(b []byte, h HexObjectID) []byte { return hex.AppendEncode(b, h[:]) }

// UnmarshalText parses 24 hex digits, either case; empty text gives the nil
// ObjectID, as [types.ObjectID.UnmarshalText] does. Errors wrap
// [types.ErrInvalidObjectID] and leave h unchanged.
func (h *HexObjectID) UnmarshalText(b []byte) error {
	return (*types.ObjectID)(h).UnmarshalText(b)
}

// UnmarshalJSON accepts what [types.ObjectID.UnmarshalJSON] accepts: a hex
// string, {"$oid": ...}, and null or "" for the nil ObjectID.
func (h *HexObjectID) UnmarshalJSON(b []byte) error {
	return (*types.ObjectID)(h).UnmarshalJSON(b)
}

// GormDataType returns GORM's "string" data type, so GORM neither makes the
// column auto-increment nor treats it as bytes.
func (HexObjectID) GormDataType() string { return string(schema.String) }

// GormDBDataType returns the column type AutoMigrate creates:
// [HexObjectIDColumnType] for db's dialect (char(24), or text on SQLite),
// NOT NULL for a primary key on every dialect. A second AutoMigrate finds
// nothing to change.
func (HexObjectID) GormDBDataType(db *gorm.DB, f *schema.Field) string {
	return hexGormType(dialectOf(db), f)
}

func dialectOf(db *gorm.DB) dialect.Dialect {
	if db == nil || db.Dialector == nil {
		return ""
	}
	return dialect.Dialect(db.Dialector.Name())
}

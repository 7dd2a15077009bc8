package types

import (
	"database/sql"
	"database/sql/driver"
	"fmt"
	"unsafe"
)

var (
	_ driver.Valuer = ObjectID{}
	_ sql.Scanner   = (*ObjectID)(nil)
)

// Value implements [database/sql/driver.Valuer]. The canonical SQL form of an
// ObjectID is its 12 raw bytes (BYTEA, BINARY(12), BLOB). For columns that
// store 24-digit hex text, see the sqltypes package.
func (id ObjectID) Value() (driver.Value, error) {
	return id[:], nil
}

// Scan implements [database/sql.Scanner]. The source is decided by its
// length, not its Go type, because drivers return text columns as []byte:
//
//   - []byte or string of 12 bytes: the raw ID;
//   - []byte or string of 24 bytes: hex digits;
//   - nil (SQL NULL): an error wrapping [ErrInvalidObjectID] and [ErrNull];
//   - anything else: an error wrapping [ErrInvalidObjectID] that names the
//     type or length.
//
// On error id is left unchanged.
func (id *ObjectID) Scan(src any) error {
	switch v := src.(type) {
	case []byte:
		if len(v) == 0 {
			return scanObjectID(id, "")
		}
		return scanObjectID(id, unsafe.String(&v[0], len(v))) // not retained
	case string:
		return scanObjectID(id, v)
	case nil:
		return fmt.Errorf("%w: %w", ErrInvalidObjectID, ErrNull)
	default:
		return fmt.Errorf("%w: cannot scan %T", ErrInvalidObjectID, src)
	}
}

func scanObjectID(id *ObjectID, v string) error {
	switch len(v) {
	case 12:
		copy(id[:], v)
		return nil
	case 24:
		return decodeHex(id, v)
	default:
		return fmt.Errorf("%w: cannot scan %d bytes, want 12 raw or 24 hex", ErrInvalidObjectID, len(v))
	}
}

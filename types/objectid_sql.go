package types

import (
	"database/sql"
	"database/sql/driver"
	"fmt"
)

var (
	_ driver.Valuer = ObjectID{}
	_ sql.Scanner   = (*ObjectID)(nil)
)

// Value implements [database/sql/driver.Valuer]: the 12 raw bytes (BYTEA,
// BINARY(12), BLOB). The zero ID is never written as a key: Value returns an
// error wrapping [ErrZeroID], together with a non-nil value that keeps GORM,
// which drops Value's error in inline conditions, from running the statement.
// For columns of 24-digit hex text, see the sqltypes package.
func (id ObjectID) Value() (driver.Value, error) {
	if id.IsZero() {
		return refusedZeroObjectID, errZeroObjectID
	}
	return id[:], nil
}

// Scan implements [database/sql.Scanner]. Drivers return text columns as
// []byte, so a []byte is decided by its length:
//
//   - []byte of 12 bytes: the raw ID;
//   - []byte or string of 24 bytes: hex digits, either case;
//   - nil (SQL NULL): an error wrapping [ErrInvalidObjectID] and [ErrNull];
//   - anything else, including a string of any other length (a 12-character
//     string is text, never raw bytes): an error wrapping
//     [ErrInvalidObjectID] that names the type or length.
//
// On error id is left unchanged.
func (id *ObjectID) Scan(src any) error {
	switch v := src.(type) {
	case []byte:
		if len(v) == 12 {
			copy(id[:], v)
			return nil
		}
		if len(v) != 24 {
			return errScanLength(len(v))
		}
		return decodeHexBytes(id, v)
	case string:
		if len(v) != 24 {
			return errScanLength(len(v))
		}
		return decodeHex(id, v)
	case nil:
		return fmt.Errorf("%w: %w", ErrInvalidObjectID, ErrNull)
	default:
		return fmt.Errorf("%w: cannot scan %T", ErrInvalidObjectID, src)
	}
}

//go:noinline
func errScanLength(n int) error {
	return fmt.Errorf("%w: cannot scan %d bytes, want 12 raw bytes or 24 hex digits", ErrInvalidObjectID, n)
}

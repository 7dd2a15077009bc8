package types

import (
	"database/sql"
	"database/sql/driver"
	"fmt"
)

var (
	_ driver.Valuer = UUID{}
	_ sql.Scanner   = (*UUID)(nil)
)

var errZeroUUID = fmt.Errorf("%w: zero UUID has no SQL value: fill it before the INSERT (with GORM: db.Use(gormplugin.New())), or use NullUUID for a nullable column", ErrZeroID)

// refusedUUID is what a zero UUID's Value returns beside its error, for
// the reason given at [refused] (and like it, neither nil nor a struct,
// slice or array).
type refusedUUID uint8

// Value implements [database/sql/driver.Valuer] so that a refusedUUID that
// reaches a driver is an error.
func (refusedUUID) Value() (driver.Value, error) { return nil, errZeroUUID }

// Value implements [database/sql/driver.Valuer]: the 16 bytes (PostgreSQL
// uuid, BINARY(16), BLOB). The zero UUID is never written: Value returns an
// error wrapping [ErrZeroID], with a non-nil value as [ObjectID.Value] does.
// Drivers that send bytes as bytea text (lib/pq, pgx's simple protocol) need
// a setting for a uuid column; see
// https://github.com/idkit-go/idkit/blob/main/docs/sql.md.
func (id UUID) Value() (driver.Value, error) {
	if id == (UUID{}) {
		return refusedUUIDValue, errZeroUUID
	}
	return id[:], nil
}

const refusedUUIDValue refusedUUID = 0

// Scan implements [database/sql.Scanner]. Drivers return text columns as
// []byte, so a []byte is decided by its length:
//
//   - []byte of 16 bytes: the raw UUID;
//   - []byte or string of 36 or 32 bytes: the text [ParseUUID] reads
//     (PostgreSQL's uuid type arrives as text);
//   - nil (SQL NULL): an error wrapping [ErrInvalidUUID] and [ErrNull];
//   - anything else: an error wrapping [ErrInvalidUUID].
//
// On error id is left unchanged.
func (id *UUID) Scan(src any) error {
	switch v := src.(type) {
	case []byte:
		if len(v) == 16 {
			copy(id[:], v)
			return nil
		}
		if len(v) != 36 && len(v) != 32 {
			return errUUIDScanLength(len(v))
		}
		return decodeUUIDBytes(id, v)
	case string:
		if len(v) != 36 && len(v) != 32 {
			return errUUIDScanLength(len(v))
		}
		return decodeUUID(id, v)
	case nil:
		return fmt.Errorf("%w: %w", ErrInvalidUUID, ErrNull)
	default:
		return fmt.Errorf("%w: cannot scan %T", ErrInvalidUUID, src)
	}
}

//go:noinline
func errUUIDScanLength(n int) error {
	return fmt.Errorf("%w: cannot scan %d bytes, want 16 raw bytes, 36 or 32 characters", ErrInvalidUUID, n)
}

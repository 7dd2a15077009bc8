package types

import (
	"database/sql/driver"
	"fmt"
)

// The Value errors of a zero ID. They name the usual cause first, a key
// nobody filled (with GORM: the plugin not registered), then the NULL
// alternative for a column that may be empty. Pre-built, so that refusing a
// zero ID costs no allocation.
var (
	errZeroObjectID  = fmt.Errorf("%w: zero ObjectID has no SQL value: fill it before the INSERT (with GORM: db.Use(gormplugin.New())), or use NullObjectID for a nullable column", ErrZeroID)
	errZeroSnowflake = fmt.Errorf("%w: zero Snowflake has no SQL value: fill it before the INSERT (with GORM: db.Use(gormplugin.New())), or use NullSnowflake for a nullable column", ErrZeroID)
)

// refused is the value Value returns together with an error. database/sql
// and the drivers read only the error. GORM, building an inline condition
// such as db.First(&row, id), drops the error and reads the value: from nil
// it can only report "unsupported data", but a refused (neither nil nor a
// struct, slice or array) makes it keep the ID itself as the condition's
// argument, so that the statement fails with the ID's own Value error, from
// the driver or, before the query, from gormplugin.
type refused uint8

const (
	refusedZeroObjectID refused = iota
	refusedZeroSnowflake
	refusedNegative
)

// Value implements [database/sql/driver.Valuer] so that a refused that
// reaches a driver is an error, never a number.
func (r refused) Value() (driver.Value, error) {
	switch r {
	case refusedZeroObjectID:
		return nil, errZeroObjectID
	case refusedZeroSnowflake:
		return nil, errZeroSnowflake
	}
	return nil, fmt.Errorf("%w: negative", ErrInvalidSnowflake)
}

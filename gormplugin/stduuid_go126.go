//go:build !go1.27

package gormplugin

import (
	"reflect"

	"gorm.io/gorm"
)

// Before Go 1.27 there is no package uuid: nothing to fill or convert.

// stdUUIDType is nil: no type is uuid.UUID.
var stdUUIDType reflect.Type

func fillStdUUIDKeys(*Plugin) {}

func stdUUIDKey(reflect.Type, []any) (any, bool) { return nil, false }

func registerStdUUIDArgs(*gorm.DB) error { return nil }

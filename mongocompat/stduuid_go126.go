//go:build !go1.27

package mongocompat

import "reflect"

// tStdUUID is nil before Go 1.27, which has no package uuid.
var tStdUUID reflect.Type

// newStdUUID is never called before Go 1.27.
func newStdUUID() any { panic("mongocompat: no uuid.UUID before Go 1.27") }

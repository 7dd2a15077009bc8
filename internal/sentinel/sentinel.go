// Package sentinel holds the error values that several idkit packages
// export under their own names, so that errors.Is matches one value
// whichever package's name a caller tests. It imports only the standard
// library, so a package that must not compile GORM (segment) can name
// them without importing generator.
package sentinel

import "errors"

// ErrInvalidConfig is every package's ErrInvalidConfig.
var ErrInvalidConfig = errors.New("idkit: invalid configuration")

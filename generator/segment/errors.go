package segment

import (
	"errors"

	"github.com/idkit-go/idkit/internal/sentinel"
)

// Errors returned by this package wrap one of these; test with [errors.Is].
var (
	// ErrInvalidConfig is generator.ErrInvalidConfig (named here without
	// importing package generator, which compiles GORM).
	ErrInvalidConfig = errInvalidConfig
	// ErrUnavailable reports that no ID is buffered and a fetch failed; the
	// database error is wrapped. Later calls retry.
	ErrUnavailable = errors.New("segment: no ids buffered and database unavailable")
	// ErrClosed reports use of an allocator after Close.
	ErrClosed = errors.New("segment: allocator closed")
)

// errInvalidConfig is generator.ErrInvalidConfig, named without importing
// package generator, which would make this package compile GORM.
var errInvalidConfig = sentinel.ErrInvalidConfig

package segment

import (
	"errors"

	"github.com/idkit-go/idkit/internal/sentinel"
)

// Errors returned by this package wrap one of these; test with [errors.Is].
var (
	// ErrInvalidConfig reports an unusable setting given to [New]. It is
	// the value of generator.ErrInvalidConfig, named here as well because
	// this package does not import generator (it compiles no GORM), so
	// errors.Is holds with either.
	ErrInvalidConfig = sentinel.ErrInvalidConfig
	// ErrUnavailable reports that no ID is buffered and a fetch failed; the
	// database error is wrapped. Later calls retry.
	ErrUnavailable = errors.New("segment: no ids buffered and database unavailable")
	// ErrClosed reports use of an allocator after Close.
	ErrClosed = errors.New("segment: allocator closed")
)

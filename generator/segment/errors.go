package segment

import (
	"errors"

	"github.com/idkit-go/idkit/generator"
)

// Errors returned by this package wrap one of these; test with [errors.Is].
var (
	// ErrInvalidConfig is [generator.ErrInvalidConfig].
	ErrInvalidConfig = generator.ErrInvalidConfig
	// ErrUnavailable reports that no ID is buffered and a fetch failed; the
	// database error is wrapped. Later calls retry.
	ErrUnavailable = errors.New("segment: no ids buffered and database unavailable")
	// ErrClosed reports use of an allocator after Close.
	ErrClosed = errors.New("segment: allocator closed")
)

package segment

import (
	"errors"

	"github.com/idkit-go/idkit/generator"
)

// Sentinel errors returned by this package. Errors carry detail by wrapping
// one of these; test for them with [errors.Is].
var (
	// ErrInvalidConfig reports an unusable option: an empty or too long
	// tag, a bad table name, step bounds out of order, a nil database or an
	// undetectable dialect.
	ErrInvalidConfig = generator.ErrInvalidConfig
	// ErrUnavailable reports that both buffered segments are used up and a
	// new segment could not be fetched from the database; the database
	// error is wrapped too. Later calls retry.
	ErrUnavailable = errors.New("segment: no ids buffered and database unavailable")
	// ErrClosed reports use of an allocator after Close.
	ErrClosed = errors.New("segment: allocator closed")
)

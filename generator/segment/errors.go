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
	// ErrLost reports that the table lost writes a segment was handed out
	// from, so that a fetch could hand the same IDs out again: a tag's row
	// deleted (New does not seed it again), the table's record row
	// deleted, the server's identity changed without its replicas having
	// acknowledged the writes, or a max_id below one the allocator
	// fetched; or a number in the table out of range (a max_id below 0 or
	// so large that a fetch would overflow, a recorded replica count
	// below 0 or above 2^18). The error names what the operator must do; a loss found
	// by a fetch is recorded in the table and fails every allocator's
	// fetches until then. [Allocator.Next] wraps it in [ErrUnavailable].
	ErrLost = errors.New("segment: the table lost handed-out segments")
	// ErrClosed reports use of an allocator after Close.
	ErrClosed = errors.New("segment: allocator closed")
)

package node

import (
	"errors"

	"github.com/idkit-go/idkit/generator"
)

// Errors returned by this package wrap one of these; test with [errors.Is].
var (
	// ErrInvalidConfig is [generator.ErrInvalidConfig]: a bad table or key
	// name, TTL, margin or renewal interval, an unknown dialect, a nil
	// database or client.
	ErrInvalidConfig = generator.ErrInvalidConfig
	// ErrNoNodeID reports a source that could not produce a node ID.
	ErrNoNodeID = errors.New("node: no node id")
	// ErrRejected reports a node ID refused by a check hook (see
	// [FromPrivateIP]); the hook's error is wrapped too.
	ErrRejected = errors.New("node: node id rejected")
	// ErrExhausted reports that every node ID is held by a live lease, or
	// that a disposable source has used up the node field.
	ErrExhausted = errors.New("node: node ids exhausted")
	// ErrLeaseLost reports a lease whose node another holder has taken, or
	// whose record was deleted. A lease serving a generator from
	// [NewSnowflake] claims a node again and the generator resumes on it.
	ErrLeaseLost = errors.New("node: lease lost")
	// ErrLeaseExpired reports a lease not renewed in time to be trusted. A
	// later successful renewal makes it valid again.
	ErrLeaseExpired = errors.New("node: lease not renewed in time")
	// ErrLeaseClosed reports use of a lease after Close.
	ErrLeaseClosed = errors.New("node: lease closed")
)

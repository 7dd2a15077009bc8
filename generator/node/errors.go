package node

import (
	"errors"

	"github.com/idkit-go/idkit/generator"
)

// Sentinel errors returned by this package. Errors carry detail by wrapping
// one of these; test for them with [errors.Is].
var (
	// ErrInvalidConfig reports an unusable option: a bad table or key name,
	// a non-positive TTL, a margin or renewal interval that leaves no time
	// to renew, an unknown dialect, a nil database or client, or an option
	// to [NewSnowflake] that sets what the lease owns (its layout, clock or
	// borrow-ahead).
	ErrInvalidConfig = generator.ErrInvalidConfig

	// ErrNoNodeID reports a source that could not produce a node ID: an
	// unset or unparsable environment variable, no private IPv4 address.
	ErrNoNodeID = errors.New("node: no node id")

	// ErrRejected reports a node ID refused by a check hook (see
	// [FromPrivateIP]); the hook's error is wrapped too.
	ErrRejected = errors.New("node: node id rejected")

	// ErrExhausted reports that every node ID of the layout is held by a
	// live lease, or that a disposable source has used up the node field.
	ErrExhausted = errors.New("node: node ids exhausted")

	// ErrLeaseLost reports a lease whose node another holder has taken, or
	// whose record was deleted. The node is never valid for this lease
	// again; a lease serving a generator from [NewSnowflake] claims a node
	// again in the background and the generator resumes on it (see the
	// package documentation), others stay lost.
	ErrLeaseLost = errors.New("node: lease lost")

	// ErrLeaseExpired reports a lease that was not renewed in time to be
	// trusted: its holder must stop issuing. A later successful renewal
	// (if nobody took the ID meanwhile) makes the lease valid again.
	ErrLeaseExpired = errors.New("node: lease not renewed in time")

	// ErrLeaseClosed reports use of a lease after Close.
	ErrLeaseClosed = errors.New("node: lease closed")
)

package node

import "errors"

// Errors returned by this package and its stores wrap one of these, or
// [generator.ErrInvalidConfig] for an unusable setting (a bad table or key
// name, TTL, margin or renewal interval, an unknown dialect, a nil
// database or client); test with [errors.Is].
var (
	// ErrNoNodeID reports a source that could not produce a node ID, or
	// whose check hook refused it (see [FromPrivateIP]; the hook's error
	// is wrapped too).
	ErrNoNodeID = errors.New("node: no node id")
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
	// ErrForgot is wrapped by a [Store]'s renewal error when the store
	// cannot prove it still holds what the lease last saw (another
	// identity, a missing record, a version lower than seen): it lost
	// writes. The lease heals by a claim after a loss ([Claim].Lost).
	ErrForgot = errors.New("node: lease store forgot writes")
	// ErrLapsed is wrapped, with [ErrLeaseLost], by a [Store]'s renewal
	// error when the record still names the lease's owner but had expired
	// when the renewal reached the store: another holder may have claimed
	// it in writes since lost. The lease heals by a claim that waits the
	// horizon ([Claim].Lapsed).
	ErrLapsed = errors.New("node: lease lapsed before the renewal reached the store")
	// ErrCorrupt is wrapped by a [Store]'s error when a stored value is
	// not what a store writes (hand-edited or damaged); the error names
	// it. A renewal whose node's own values are corrupt also wraps
	// [ErrForgot], and the lease's claim after it rewrites them and waits
	// the horizon; a corrupt value of the whole store fails claims until
	// it is repaired.
	ErrCorrupt = errors.New("node: corrupt lease store value")
)

// Package failover is what the lease stores of package node and its
// subpackages share to notice a coordinator that forgot acknowledged writes
// (a failover to an asynchronous replica, a restart without its data, a
// restore, an eviction) and to wait out the holders it forgot.
//
// The rule (docs/leases.md): a request, a claim or a renewal, that cannot
// prove the store still holds everything the lease last saw is a claim
// after a loss. Its floor is the store's clock when the request reached
// the store plus the horizon: the longest TTL + BorrowAhead + unit +
// MaxClockOffset any holder of the store has used, which the store keeps
// with the leases and every claim raises to its own.
package failover

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"
)

// Off turns the wait-out off, so that a failover test can show the
// duplicates it prevents. Detection still records the new identity.
var Off atomic.Bool

// ErrForgot is wrapped by a renewal error when the store cannot prove it
// still holds what the lease last saw (another identity, a missing record,
// a version lower than seen): the lease heals with Claim.Lost set.
var ErrForgot = errors.New("lease store forgot writes")

// ErrLapsed is wrapped, with node.ErrLeaseLost, by a renewal error when the
// record still names the lease's owner but had expired when the renewal
// reached the store: someone may have claimed it and been forgotten (a
// restore that kept the identity and the version). The lease heals with
// Claim.Lapsed set.
var ErrLapsed = errors.New("lease lapsed before the renewal reached the store")

// Seen is what a lease learned from its last successful request: the
// store's identity (PostgreSQL system identifier and timeline, MySQL
// server_id and server_uuid, MariaDB server_id, Redis master_replid, etcd
// cluster ID) and a counter that every write of the lease's record raises
// (a per-record version, or etcd's revision). The zero Seen is "nothing".
type Seen struct {
	Ident   string
	Version int64
}

// Claim is one claim's request: the arguments of node.Store.Claim, plus
// the holder's horizon and what it knows of a loss.
type Claim struct {
	Owner           string
	TTL             time.Duration
	MaxNode, Prefer int64
	// Bound is the high-water mark to record on the node (Unix ns).
	Bound int64
	// Horizon is this holder's TTL + BorrowAhead + unit + MaxClockOffset;
	// the store keeps the largest of all its holders' and waits that out.
	Horizon time.Duration
	// Lost: the caller knows the store lost writes (a renewal failed with
	// ErrForgot); the store records a store-wide mark as it does when it
	// detects a loss itself.
	Lost bool
	// Lapsed: the caller's lease lapsed before its renewal reached the
	// store; this claim alone waits the horizon (Claimed.Floor includes
	// Arrived + the stored horizon), without a store-wide mark.
	Lapsed bool
	// Seen is what the lease's last successful request returned (zero
	// for a lease's first claim): a heal's claim must prove no less, as
	// a renewal must (Redis: the replicas to wait for).
	Seen Seen
	// Log receives the store's warnings (never nil when called by node).
	Log *slog.Logger
}

// Claimed is what a claim returns.
type Claimed struct {
	Node int64
	// Floor is the time (Unix ns) the node's IDs must start after: the
	// node's high-water mark, and the store-wide mark while one is in
	// force, and for a Lapsed claim Arrived + Horizon.
	Floor int64
	// Seen is what the claim saw, for the lease's first renewal.
	Seen Seen
	// Forgot is true when this claim found (or was told) the store lost
	// writes and recorded a store-wide mark.
	Forgot bool
}

// Renewal is one renewal's request.
type Renewal struct {
	Node    int64
	Owner   string
	TTL     time.Duration
	Bound   int64         // the high-water mark to record (Unix ns)
	Horizon time.Duration // the holder's horizon, as in Claim
	Seen    Seen          // what the lease last saw
}

// Store is implemented by every lease store of this module.
type Store interface {
	// Guarded is node.Store.Claim following the rule of the package doc.
	Guarded(ctx context.Context, c Claim) (Claimed, error)
	// GuardedRenew extends the lease only if the store proves it holds
	// what the lease last saw: the same identity, the same owner, a
	// version not lower than seen, and the record not expired when the
	// request arrived. It returns what it saw now, or an error wrapping
	// ErrForgot (the store lost writes), or node.ErrLeaseLost (another
	// holder took the node; with ErrLapsed if the lease had expired).
	GuardedRenew(ctx context.Context, r Renewal) (Seen, error)
}

// Warn logs msg once at WARN on log (nil: not at all) if *done is false.
func Warn(done *atomic.Bool, log *slog.Logger, msg string, args ...any) {
	if log == nil || done.Load() || done.Swap(true) {
		return
	}
	log.Warn(msg, args...)
}

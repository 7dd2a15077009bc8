package node

import (
	"context"
	"log/slog"
	"time"
)

// Store keeps lease records for [NewLease]: [NewSQLStore], package
// redislease's, package etcdlease's, or one of your own. A lease calls
// only these methods, so a Store that forwards them to another (to count
// or trace calls) keeps every guarantee of the one it wraps. The protocol
// in full, with what the stores of this module do:
// https://github.com/idkit-go/idkit/blob/main/docs/leases.md#writing-a-store
//
// In short: each method is atomic with respect to the others, also across
// processes, and returns when ctx ends. Expiry is by the store's own clock;
// marks are Unix nanoseconds of the holders' clocks, and a node's mark
// only rises, except by an exact Release. A store keeps a horizon, the
// largest [Claim].Horizon of any claim it kept, and never forgets a write
// without a trace: a request that cannot prove the store still holds
// everything the lease last saw ([Seen]) is a claim after a loss, whose
// floor is the store's clock when the request reached it plus the horizon.
type Store interface {
	// Claim takes for c.Owner, until c.TTL from now, node c.Prefer if it
	// is in [0, c.MaxNode] and free, expired or c.Owner's, else any free
	// or expired node of [0, c.MaxNode]. It raises the node's mark to
	// c.Bound, the store's horizon to c.Horizon, and returns the node,
	// its floor and what the claim saw, or an error wrapping
	// [ErrExhausted] when every node is held.
	Claim(ctx context.Context, c Claim) (Claimed, error)
	// Renew extends r.Owner's lease of r.Node to r.TTL from now and raises
	// its mark to r.Bound, only if the store proves it still holds what
	// r.Seen names, and returns what it saw now. Otherwise it returns an
	// error wrapping [ErrForgot] (the store lost writes), or
	// [ErrLeaseLost] (another owner holds the node; with [ErrLapsed] too
	// if the record still named r.Owner but had expired).
	Renew(ctx context.Context, r Renewal) (Seen, error)
	// Release frees owner's node, setting its mark to hwm (exact) or
	// raising it to hwm; it changes nothing if owner does not hold node.
	Release(ctx context.Context, node int64, owner string, hwm int64, exact bool) error
}

// Claim is one claim's request to a [Store].
type Claim struct {
	Owner string
	// TTL is how long the claim holds the node by the store's clock.
	TTL time.Duration
	// MaxNode bounds the nodes claimed: [0, MaxNode].
	MaxNode int64
	// Prefer is the node to take if it is free, expired or Owner's (the
	// node a healing lease held); -1 for none.
	Prefer int64
	// Bound is the mark to record on the node (Unix ns): no ID the holder
	// issues before its next successful request reads a later time.
	Bound int64
	// Horizon is the holder's TTL + BorrowAhead + unit + MaxClockOffset:
	// how long after a request reached the store the holder's IDs may
	// still reach. The store keeps the largest it was given and waits it
	// out after a loss.
	Horizon time.Duration
	// Lost: a renewal of this holder failed with [ErrForgot]; the claim
	// is a claim after a loss even if the store cannot tell.
	Lost bool
	// Lapsed: a renewal of this holder failed with [ErrLapsed]; this
	// claim alone waits out the horizon ([Claimed].Floor at least the
	// store's clock + the horizon), with no store-wide mark.
	Lapsed bool
	// Seen is what the lease's last successful request returned (zero for
	// a lease's first claim). A claim after a loss must prove no less
	// than a renewal would: Redis's waits for the replicas the lease saw.
	Seen Seen
	// Log receives the store's warnings; nil for [slog.Default].
	Log *slog.Logger
}

// Claimed is what a [Store] returns for a claim.
type Claimed struct {
	Node int64
	// Floor (Unix ns) is what the node's IDs must start after: at least
	// the node's mark, the store-wide mark while one is in force, and
	// after a loss or for a lapsed claim the store's clock when the claim
	// ran + the horizon. 0 if none.
	Floor int64
	// Seen is what the claim saw, for the lease's first renewal.
	Seen Seen
	// Forgot is true when the claim found (or was told) that the store
	// lost writes and recorded a store-wide mark.
	Forgot bool
}

// Renewal is one renewal's request to a [Store].
type Renewal struct {
	Node  int64
	Owner string
	TTL   time.Duration
	// Bound and Horizon are as in [Claim].
	Bound   int64
	Horizon time.Duration
	// Seen is what the lease's last successful request returned.
	Seen Seen
}

// Seen is what a lease learned from its last successful request, which its
// next renewal must prove the store still holds: the store's identity (a
// value a failover, a restart without data or a restore changes; for
// example PostgreSQL's system identifier and timeline) and a version of
// the lease's record that every write of it raises and a store that forgot
// writes cannot show again. Each store chooses and compares its own
// values; the lease only carries them.
type Seen struct {
	Ident   string
	Version int64
}

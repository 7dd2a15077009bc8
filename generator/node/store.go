package node

import (
	"context"
	"log/slog"
	"time"
)

// Store keeps lease records for [NewLease]: the stores of packages sqllease,
// redislease, etcdlease and kubelease, or one of your own. A lease calls
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
	// Claim takes a node for c.Owner. In one atomic step, in this order:
	//
	//  1. It picks c.Prefer if it is in [0, c.MaxNode] and free, expired
	//     or already c.Owner's, else any free or expired node of
	//     [0, c.MaxNode]. With none, it returns an error wrapping
	//     [ErrExhausted] and writes nothing. A store whose claims read,
	//     then write conditioned on the read (etcd, Kubernetes) picks at
	//     random among the free nodes it read, so that many processes
	//     claiming at once spread instead of colliding on the lowest.
	//  2. It writes the owner, the expiry (the store's clock + c.TTL), the
	//     node's mark raised to c.Bound, the node's version raised, and
	//     the store's horizon raised to c.Horizon.
	//  3. The floor is the node's mark before the claim, raised to the
	//     store-wide mark.
	//  4. A claim after a loss (the store's identity changed, a record a
	//     kept store cannot lack is missing, or c.Lost) raises the floor
	//     to the store's clock + the horizon, records that floor as the
	//     store-wide mark, and sets [Claimed].Forgot. A lapsed claim
	//     (c.Lapsed) raises only its own floor to the store's clock + the
	//     horizon.
	//  5. It returns the node, the floor and what it saw ([Seen]), and
	//     sets [Claimed].Kept if it took c.Prefer and, before this claim's
	//     write, the node's record named c.Owner at a version not below
	//     the one c.Seen shows (not zero): the record as the lease last
	//     saw it, or as a renewal of the lease left it since (one whose
	//     answer was lost).
	Claim(ctx context.Context, c Claim) (Claimed, error)
	// Renew extends r.Owner's lease of r.Node. In one atomic step, it
	// checks in this order and stops at the first that holds:
	//
	//  1. The store's identity is not r.Seen.Ident, the node's record is
	//     missing, or its version is below r.Seen.Version: the store
	//     forgot writes. It writes nothing and returns an error wrapping
	//     [ErrForgot].
	//  2. The record names another owner: an error wrapping
	//     [ErrLeaseLost].
	//  3. The record names r.Owner but had expired when the request
	//     reached the store: an error wrapping [ErrLeaseLost] and
	//     [ErrLapsed].
	//  4. Otherwise it extends the expiry to the store's clock + r.TTL,
	//     raises the mark to r.Bound, the version, and the horizon to
	//     r.Horizon, and returns what it saw now.
	Renew(ctx context.Context, r Renewal) (Seen, error)
	// Release frees r.Node if r.Owner holds it: it clears the owner and
	// sets the node's mark to r.Mark (r.Exact) or raises it to r.Mark. If
	// r.Owner does not hold the node it changes nothing and returns nil.
	// It never deletes a node's record, which keeps the mark.
	Release(ctx context.Context, r Release) error
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
	// Log is the lease's logger ([LeaseOptions].Logger, with the owner
	// attached), for the store's warnings about this claim (a setting
	// that invites a loss, a wait for earlier holders); nil for
	// [slog.Default]. It travels with the claim, not in the store's
	// options, because one store serves many leases and each lease's
	// warnings belong in that lease's log, where its user looks.
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
	// Kept is true when the claim took [Claim].Prefer and found its record
	// as the lease last saw it or as its renewals left it since: naming
	// [Claim].Owner, at a version not below the one [Claim].Seen shows
	// (neither missing, gone back nor rewritten by another owner). A
	// lease whose renewal failed with [ErrForgot] then keeps its node and
	// its generator's sequence without waiting for Floor, if the claim was
	// answered while the lease was still trusted, and no claim of its own
	// since its last successful request failed (one may have been applied
	// after another owner's tenure)
	// (https://github.com/idkit-go/idkit/blob/main/docs/leases.md#failover-without-a-pause).
	// A store that cannot tell leaves it false, and such a lease waits for
	// Floor as after any loss.
	Kept bool
}

// Release is one release's request to a [Store].
type Release struct {
	Node  int64
	Owner string
	// Mark (Unix ns) is the node's mark after the release: no ID the
	// holder issued reads a later time.
	Mark int64
	// Exact sets the mark to Mark even when it is lower than the mark
	// recorded, which the holder's last renewal raised ahead of its
	// clock; otherwise the mark is only raised.
	Exact bool
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

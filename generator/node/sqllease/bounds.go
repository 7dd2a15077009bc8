package sqllease

import (
	"fmt"
	"strconv"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
)

// Bounds of the numeric fields the store reads back (docs/leases.md,
// "Corrupt values"). A value outside them is not one the store writes: a
// hand edit or damage. Taken as it is, a horizon near 2^63 ns wraps the
// wait after a loss into the past, a version at the largest BIGINT fails
// every renewal with "bigint out of range", and a mark centuries ahead
// makes the claimer wait until then.
//
// A node's own fields (its mark, version and expiry) are repaired by the
// claim that takes the node: a mark or expiry out of bounds is a loss of
// that node (the claim waits out the horizon and writes the mark again),
// a version out of bounds starts again at 1 (the owner changes, so no
// earlier holder's renewal proves continuity with it). A renewal that
// finds its node's mark or version out of bounds fails with
// node.ErrForgot and node.ErrCorrupt, naming the field, so the lease heals
// by such a claim. The store-wide fields (the identity row's mark and
// horizon, the replicas recorded in row -2) fail every claim with
// node.ErrCorrupt, writing nothing, until an operator repairs them: the
// store cannot tell what floor or horizon they held.
const (
	// maxHorizon bounds a horizon (TTL + BorrowAhead + unit +
	// MaxClockOffset): a claim or renewal with a longer one is refused,
	// and a stored one above it is corrupt. A mark (Unix ns) more than
	// maxHorizon after the server's clock is corrupt too: every mark the
	// store writes is a holder's bound or the clock + a horizon.
	maxHorizon = 24 * time.Hour
	// maxVersion bounds a version: one write each, it never gets near.
	maxVersion = 1 << 53
	// maxReplicas bounds the replicas recorded in row -2 (PostgreSQL's
	// max_wal_senders is at most 262143).
	maxReplicas = 1 << 18
)

// Bounds as SQL literals.
var (
	maxHorizonNS  = strconv.FormatInt(int64(maxHorizon), 10)
	maxVersionSQL = strconv.FormatInt(maxVersion, 10)
	maxReplSQL    = strconv.FormatInt(maxReplicas, 10)
)

// badMark reports whether a mark (Unix ns) is out of bounds by the
// server's clock (Unix ns).
func badMark(mark, clock int64) bool { return mark < 0 || mark > clock+int64(maxHorizon) }

// badVersion reports whether a version is out of bounds.
func badVersion(v int64) bool { return v < 0 || v >= maxVersion }

// nextVersion is the version a claim writes over v.
func nextVersion(v int64) int64 {
	if badVersion(v) {
		return 1
	}
	return v + 1
}

// checkHorizon refuses a claim's or renewal's horizon above maxHorizon.
func checkHorizon(h time.Duration) error {
	if h < 0 || h > maxHorizon {
		return fmt.Errorf("%w: sqllease: horizon %v (TTL + BorrowAhead + unit + MaxClockOffset) not in [0, %v]", generator.ErrInvalidConfig, h, maxHorizon)
	}
	return nil
}

// corrupt returns an error wrapping node.ErrCorrupt naming the first
// store-wide field id read out of bounds, and how to repair it; nil if
// none is.
func (id *identity) corrupt() error {
	const fix = "; set it right, or DELETE the table's row of node -1 (claims then wait out the horizon, as after a failover)"
	switch {
	case id.mark.Valid && badMark(id.mark.Int64, id.clock):
		return fmt.Errorf("%w: sqllease: field hwm_ns of the identity row (node -1), the store-wide mark, holds %d: not a time (Unix ns) from 0 to the server's clock + %v"+fix,
			node.ErrCorrupt, id.mark.Int64, maxHorizon)
	case id.horizon.Valid && (id.horizon.Int64 < 0 || id.horizon.Int64 > int64(maxHorizon)):
		return fmt.Errorf("%w: sqllease: field version of the identity row (node -1), the horizon, holds %d: not a duration (ns) from 0 to %v"+fix,
			node.ErrCorrupt, id.horizon.Int64, maxHorizon)
	case id.recorded.Valid && (id.recorded.Int64 < 0 || id.recorded.Int64 > maxReplicas):
		return fmt.Errorf("%w: sqllease: field version of row -2, the replicas recorded for this server, holds %d: not a count from 0 to %d; set it to the server's replicas, or DELETE the table's row of node -2 (claims then count the replicas streaming)",
			node.ErrCorrupt, id.recorded.Int64, maxReplicas)
	}
	return nil
}

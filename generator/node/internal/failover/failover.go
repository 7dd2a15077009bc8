// Package failover is what the lease stores of package node and its
// subpackages share to notice a coordinator that forgot acknowledged writes
// (a failover to an asynchronous replica, a restart without its data) and
// to wait out the holders it forgot.
package failover

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// Off turns the wait-out off, so that a failover test can show the
// duplicates it prevents. Detection still records the new identity.
var Off atomic.Bool

// Claim is one claim's request: the arguments of node.Store.Claim, plus
// Mark and Log.
type Claim struct {
	Owner           string
	TTL             time.Duration
	MaxNode, Prefer int64
	Bound           int64 // the claimer's high-water mark (Unix ns)
	Mark            int64 // Bound + the clock-offset bound: the floor after a loss (Unix ns)
	Log             *slog.Logger
}

// Store is implemented by the stores of this module that detect a
// failover: Guarded is Claim that, when the store finds it forgot writes,
// or sees a mark a claim recorded after such a finding, returns a floor at
// or above that mark.
type Store interface {
	Guarded(ctx context.Context, c Claim) (node, floor int64, err error)
}

// Warn logs msg once at WARN on log (nil: not at all) if *done is false.
func Warn(done *atomic.Bool, log *slog.Logger, msg string, args ...any) {
	if log == nil || done.Load() || done.Swap(true) {
		return
	}
	log.Warn(msg, args...)
}

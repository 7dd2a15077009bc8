// Package failover is what the lease stores of the root module share
// beyond the public contract of node.Store: a switch for tests and a
// once-only warning.
package failover

import (
	"log/slog"
	"sync/atomic"
)

// Off turns the wait-out off, so that a failover test can show the
// duplicates it prevents. Detection still records the new identity. Only
// tests set it.
var Off atomic.Bool

// Warn logs msg once at WARN on log (nil: not at all) if *done is false.
func Warn(done *atomic.Bool, log *slog.Logger, msg string, args ...any) {
	if log == nil || done.Load() || done.Swap(true) {
		return
	}
	log.Warn(msg, args...)
}

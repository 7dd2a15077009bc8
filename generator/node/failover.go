package node

import (
	"context"
	"log/slog"
	"time"
)

// defaultMaxClockOffset is [LeaseOptions].MaxClockOffset's default: ntpd
// steps a clock that is 128 ms off, and chrony as packaged steps at 1 s
// only at boot; 500 ms covers a synchronized fleet with room, and costs
// only after a failover.
const defaultMaxClockOffset = 500 * time.Millisecond

// horizon is how long after a request reached the store the IDs of this
// holder may still reach: TTL + BorrowAhead + unit + MaxClockOffset (see
// docs/leases.md).
func (l *Lease) horizon() time.Duration {
	return l.o.TTL + l.set.BorrowAhead + l.set.Unit + l.o.MaxClockOffset
}

// warnLog is where safety warnings go: the lease's logger, or
// slog.Default() when LeaseOptions.Logger is nil.
func (l *Lease) warnLog() *slog.Logger {
	if l.log != nil {
		return l.log
	}
	return slog.Default().With("owner", l.o.Owner)
}

// claim claims a node for the lease (prefer -1 for any), the request
// started when the clock read c0. lost: a renewal found the store forgot
// writes; lapsed: the lease expired before its renewal reached the store.
// It records what the store showed for the next renewal.
func (l *Lease) claim(ctx context.Context, prefer int64, c0 time.Time, lost, lapsed bool) (node, floor int64, err error) {
	r, err := l.b.Claim(ctx, Claim{
		Owner: l.o.Owner, TTL: l.o.TTL, MaxNode: l.set.MaxNode, Prefer: prefer,
		Bound: l.bound(c0), Horizon: l.horizon(), Lost: lost, Lapsed: lapsed, Seen: l.seen, Log: l.warnLog(),
	})
	if err != nil {
		return 0, 0, err
	}
	l.seen = r.Seen
	return r.Node, r.Floor, nil
}

// renewOnce renews node, the request started when the clock read c0: the
// store must prove it still holds what the lease last saw.
func (l *Lease) renewOnce(ctx context.Context, node int64, c0 time.Time) error {
	seen, err := l.b.Renew(ctx, Renewal{
		Node: node, Owner: l.o.Owner, TTL: l.o.TTL, Bound: l.bound(c0), Horizon: l.horizon(), Seen: l.seen,
	})
	if err == nil {
		l.seen = seen
	}
	return err
}

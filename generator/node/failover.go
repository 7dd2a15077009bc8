package node

import (
	"context"
	"time"

	"github.com/idkit-go/idkit/generator/node/internal/failover"
)

// defaultMaxClockOffset is [LeaseOptions].MaxClockOffset's default: ntpd
// steps a clock that is 128 ms off, and chrony as packaged steps at 1 s
// only at boot; 500 ms covers a synchronized fleet with room, and costs
// only after a failover.
const defaultMaxClockOffset = 500 * time.Millisecond

// claim claims a node for the lease (prefer -1 for any), the request
// started when the clock read c0. A store that detects a failover learns
// the floor to give every claim after one: the claimer's bound plus the
// clock-offset bound (see docs/leases.md).
func (l *Lease) claim(ctx context.Context, prefer int64, c0 time.Time) (node, floor int64, err error) {
	bound := l.bound(c0)
	if g, ok := l.b.(failover.Store); ok {
		return g.Guarded(ctx, failover.Claim{
			Owner: l.o.Owner, TTL: l.o.TTL, MaxNode: l.o.Layout.MaxNode(), Prefer: prefer,
			Bound: bound, Mark: bound + int64(l.o.MaxClockOffset), Log: l.log,
		})
	}
	return l.b.Claim(ctx, l.o.Owner, l.o.TTL, l.o.Layout.MaxNode(), prefer, bound)
}

package node

import (
	"fmt"
	"github.com/idkit-go/idkit/generator"
	"log/slog"
	"os"
	"time"
)

// defaultTTL is the TTL of a lease whose [LeaseOptions].TTL is zero.
const defaultTTL = 10 * time.Second

// defaultMaxClockOffset is [LeaseOptions].MaxClockOffset's default: ntpd
// steps a clock that is 128 ms off, and chrony as packaged steps at 1 s
// only at boot; 500 ms covers a synchronized fleet with room, and costs
// only after a failover.
const defaultMaxClockOffset = 500 * time.Millisecond

// maxOwnerLabel bounds [LeaseOptions].Owner: with its 13-byte suffix the
// recorded owner fits the SQL store's 128-byte column.
const maxOwnerLabel = 115

// LeaseOptions configures a lease on any [Store]; the generator's own
// settings are the options [NewLease] takes. The zero value gives a lease
// with a 10 s TTL, renewed every TTL/3, trusted until TTL/4 before expiry.
// Tuning: https://github.com/idkit-go/idkit/blob/main/docs/leases.md#tuning
type LeaseOptions struct {
	// TTL is how long a claim or renewal lasts by the coordinator's clock.
	// Default 10 s; at least 100 ms.
	TTL time.Duration
	// RenewEvery is the renewal interval. Default TTL/3; below TTL-Margin.
	RenewEvery time.Duration
	// Margin is how long before expiry the holder stops trusting the lease:
	// more than clock drift over a TTL and the longest stall while making
	// an ID. Default TTL/4; in (0, TTL).
	Margin time.Duration
	// MaxClockOffset bounds how far apart the clocks of the hosts that
	// lease from one store, and the store's own, may read. After a store
	// forgot writes (a failover to an asynchronous replica, a restart
	// without its data, a restore), claims start their IDs after the
	// store's clock + the longest TTL + BorrowAhead + unit +
	// MaxClockOffset of any holder of that store. Default 500 ms; not
	// negative.
	MaxClockOffset time.Duration
	// Owner labels this holder in the store's records, at most 115 bytes.
	// The lease records it with a random suffix ("-" and 12 hex digits),
	// so that the owner a store records is unique per lease even when
	// processes share a label (a service name, a cloned container's host
	// name). Default host-pid. [LeaseStats].Owner is the owner recorded.
	Owner string
	// Logger, if not nil, receives one record per change of state.
	Logger *slog.Logger
}

func (o LeaseOptions) withDefaults() (LeaseOptions, error) {
	if o.TTL == 0 {
		o.TTL = defaultTTL
	}
	if o.Margin == 0 {
		o.Margin = o.TTL / 4
	}
	if o.RenewEvery == 0 {
		o.RenewEvery = o.TTL / 3
	}
	if o.MaxClockOffset == 0 {
		o.MaxClockOffset = defaultMaxClockOffset
	}
	label := o.Owner
	if label == "" {
		host, _ := os.Hostname()
		if len(host) > 64 {
			host = host[:64]
		}
		label = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	o.Owner = label + "-" + randomHex(6)
	switch {
	case o.TTL < 100*time.Millisecond:
		return o, fmt.Errorf("%w: ttl %v below 100ms", generator.ErrInvalidConfig, o.TTL)
	case o.Margin <= 0 || o.Margin >= o.TTL:
		return o, fmt.Errorf("%w: margin %v not in (0, ttl %v)", generator.ErrInvalidConfig, o.Margin, o.TTL)
	case o.RenewEvery <= 0 || o.RenewEvery >= o.TTL-o.Margin:
		return o, fmt.Errorf("%w: renew interval %v not in (0, ttl-margin %v)", generator.ErrInvalidConfig, o.RenewEvery, o.TTL-o.Margin)
	case o.MaxClockOffset < 0:
		return o, fmt.Errorf("%w: negative clock-offset bound %v", generator.ErrInvalidConfig, o.MaxClockOffset)
	case len(label) > maxOwnerLabel:
		return o, fmt.Errorf("%w: owner %q longer than %d bytes", generator.ErrInvalidConfig, label, maxOwnerLabel)
	}
	return o, nil
}

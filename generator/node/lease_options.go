package node

import (
	"fmt"
	"github.com/idkit-go/idkit/generator"
	"log/slog"
	"math"
	"os"
	"time"
)

// defaultMaxOutage, defaultRenewEvery and defaultMargin are the defaults
// of a lease whose [LeaseOptions].TTL is zero, which then is their sum
// (66 s): the outage of a managed database's failover (60 to 120 s on
// RDS Multi-AZ, 10 to 30 s for Redis Sentinel) ridden through; one
// renewal per holder every 4 s (250 writes a second for 1,000 holders);
// and 2 s for clock-rate drift over a TTL (66 ms at 1,000 ppm) and the
// longest stall between a fence check and the ID it lets through.
const (
	defaultMaxOutage  = 60 * time.Second
	defaultRenewEvery = 4 * time.Second
	defaultMargin     = 2 * time.Second
)

// maxTTL is the longest TTL a lease takes: what the narrowest TTL field of
// this module's stores holds, a Kubernetes Lease's leaseDurationSeconds
// (an int32 of seconds).
const maxTTL = math.MaxInt32 * time.Second

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
// that issues through a store outage of up to 60 s: renewed every 4 s,
// trusted until 2 s before expiry, with a TTL of 66 s.
// Tuning: https://github.com/idkit-go/idkit/blob/main/docs/leases.md#tuning
type LeaseOptions struct {
	// MaxOutage is the longest outage of the store (unreachable, stopped,
	// failing over, without quorum) that the holder issues through: an
	// outage that starts just after a successful renewal and lasts at most
	// MaxOutage ends while the holder still trusts its lease, and the
	// renewals after it keep it trusted. With TTL zero, the TTL is
	// MaxOutage + RenewEvery + Margin; with TTL set, MaxOutage is at most
	// TTL - RenewEvery - Margin, which is its default then. Default 60 s;
	// not negative. A longer one costs a longer TTL: a crashed holder's
	// node stays unusable for the TTL, and a claim after a loss waits
	// about the TTL (see Tuning).
	MaxOutage time.Duration
	// TTL is how long a claim or renewal lasts by the coordinator's clock.
	// Default MaxOutage + RenewEvery + Margin (66 s); at least 100 ms and
	// at most 2^31-1 s.
	TTL time.Duration
	// RenewEvery is the renewal interval. Default 4 s, or TTL/3 with TTL
	// set; below TTL-Margin.
	RenewEvery time.Duration
	// Margin is how long before expiry the holder stops trusting the lease:
	// more than clock drift over a TTL and the longest stall while making
	// an ID. Default 2 s, or TTL/4 with TTL set; in (0, TTL).
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
	if o.MaxOutage < 0 {
		return o, fmt.Errorf("%w: MaxOutage %v is negative", generator.ErrInvalidConfig, o.MaxOutage)
	}
	derived := o.TTL == 0
	if derived {
		// The TTL follows from the outage to ride through: an outage that
		// starts just after a renewal reached the store and lasts
		// MaxOutage ends RenewEvery before the holder stops trusting, time
		// for the renewals after it (see Lease.renew) to get through.
		if o.MaxOutage == 0 {
			o.MaxOutage = defaultMaxOutage
		}
		if o.RenewEvery == 0 {
			o.RenewEvery = defaultRenewEvery
		}
		if o.Margin == 0 {
			o.Margin = defaultMargin
		}
		if o.RenewEvery < 0 || o.Margin < 0 || o.MaxOutage > maxTTL-o.RenewEvery-o.Margin {
			return o, fmt.Errorf("%w: MaxOutage %v + RenewEvery %v + Margin %v, the TTL, is not in (0, %v], what a Kubernetes Lease's leaseDurationSeconds holds",
				generator.ErrInvalidConfig, o.MaxOutage, o.RenewEvery, o.Margin, maxTTL)
		}
		o.TTL = o.MaxOutage + o.RenewEvery + o.Margin
	} else {
		if o.Margin == 0 {
			o.Margin = o.TTL / 4
		}
		if o.RenewEvery == 0 {
			o.RenewEvery = o.TTL / 3
		}
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
		return o, fmt.Errorf("%w: TTL %v below 100ms", generator.ErrInvalidConfig, o.TTL)
	case o.Margin <= 0 || o.Margin >= o.TTL:
		return o, fmt.Errorf("%w: Margin %v not in (0, TTL %v)", generator.ErrInvalidConfig, o.Margin, o.TTL)
	case o.RenewEvery <= 0 || o.RenewEvery >= o.TTL-o.Margin:
		return o, fmt.Errorf("%w: RenewEvery %v not in (0, TTL - Margin %v)", generator.ErrInvalidConfig, o.RenewEvery, o.TTL-o.Margin)
	case o.TTL > maxTTL:
		return o, fmt.Errorf("%w: TTL %v beyond %v, what a Kubernetes Lease's leaseDurationSeconds holds", generator.ErrInvalidConfig, o.TTL, maxTTL)
	case !derived && o.MaxOutage > o.TTL-o.RenewEvery-o.Margin:
		return o, fmt.Errorf("%w: MaxOutage %v beyond TTL %v - RenewEvery %v - Margin %v: leave MaxOutage or TTL zero, or raise TTL to %v",
			generator.ErrInvalidConfig, o.MaxOutage, o.TTL, o.RenewEvery, o.Margin, o.MaxOutage+o.RenewEvery+o.Margin)
	case o.MaxClockOffset < 0:
		return o, fmt.Errorf("%w: MaxClockOffset %v is negative", generator.ErrInvalidConfig, o.MaxClockOffset)
	case len(label) > maxOwnerLabel:
		return o, fmt.Errorf("%w: Owner %q longer than %d bytes", generator.ErrInvalidConfig, label, maxOwnerLabel)
	}
	if !derived && o.MaxOutage == 0 {
		o.MaxOutage = o.TTL - o.RenewEvery - o.Margin
	}
	return o, nil
}

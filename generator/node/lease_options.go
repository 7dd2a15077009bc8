package node

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/idkit-go/idkit/generator"
)

// Default lease timings, used when the [LeaseOptions] field is zero.
const (
	DefaultTTL = 10 * time.Second
)

// LeaseOptions configures [NewSQLLease], [NewLease] and package
// redislease: the settings common to every [Store]; a store's own settings
// go to its constructor ([NewSQLStore], redislease.NewStore). The zero value
// gives a Twitter-layout lease with a 10 s TTL, renewed every TTL/3, trusted
// until TTL/4 before expiry.
type LeaseOptions struct {
	// Layout bounds the node IDs claimed to [0, Layout.MaxNode()] and is the
	// layout [NewSnowflake] uses. Default [generator.Twitter].
	Layout generator.Layout

	// TTL is how long a claim or renewal lasts, measured by the
	// coordinator's clock. Default [DefaultTTL]; at least 100 ms.
	TTL time.Duration

	// RenewEvery is the renewal interval. Default TTL/3; it must be below
	// TTL-Margin. After a failed renewal the next try comes sooner.
	RenewEvery time.Duration

	// Margin is how long before the coordinator's expiry the holder stops
	// trusting the lease. Default TTL/4; it must be positive and below TTL.
	// It must exceed clock-rate drift over one TTL and the longest stall
	// between a generator's fence check and its issuing of an ID. With the
	// system clock, [Lease.Fence]'s fast window (the coarse clock only)
	// ends Margin/2 before the limits.
	Margin time.Duration

	// Clock is the clock of the generator that will use the lease; its
	// readings bound the recorded high-water mark. Default
	// [generator.SystemClock]. [NewSnowflake] passes it to the generator.
	Clock generator.Clock

	// BorrowAhead is the generator's borrow-ahead allowance (see
	// [generator.WithBorrowAhead]), added to the recorded high-water mark.
	// [NewSnowflake] passes it to the generator. Default 0.
	BorrowAhead time.Duration

	// MaxClockOffset bounds how far apart the clocks of the hosts that
	// lease from one store may read. When a store finds it forgot writes (a
	// failover to an asynchronous replica, a restart without its data), a
	// holder it forgot may still issue IDs for up to TTL plus BorrowAhead
	// by its own clock, so claims until then start their IDs after now +
	// TTL + BorrowAhead + MaxClockOffset. Default 500 ms; not negative.
	MaxClockOffset time.Duration

	// Owner identifies this holder in the lease record. Default
	// host-pid-random; it must be unique per lease, at most 128 bytes.
	Owner string

	// Logger receives one record per change of the lease's state: claimed
	// and re-claimed (INFO), renewals failing (WARN, once per failing
	// streak), renewed again (INFO), fenced and lost (WARN), closed
	// (INFO). Nil logs nothing.
	Logger *slog.Logger
}

func (o LeaseOptions) withDefaults() (LeaseOptions, error) {
	if o.Layout.IsZero() {
		o.Layout = generator.Twitter()
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
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
	if o.Clock == nil {
		o.Clock = generator.SystemClock()
	}
	if o.Owner == "" {
		host, _ := os.Hostname()
		if len(host) > 64 {
			host = host[:64]
		}
		o.Owner = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), randomHex(6))
	}
	switch {
	case o.TTL < 100*time.Millisecond:
		return o, fmt.Errorf("%w: ttl %v below 100ms", ErrInvalidConfig, o.TTL)
	case o.Margin <= 0 || o.Margin >= o.TTL:
		return o, fmt.Errorf("%w: margin %v not in (0, ttl %v)", ErrInvalidConfig, o.Margin, o.TTL)
	case o.RenewEvery <= 0 || o.RenewEvery >= o.TTL-o.Margin:
		return o, fmt.Errorf("%w: renew interval %v not in (0, ttl-margin %v)", ErrInvalidConfig, o.RenewEvery, o.TTL-o.Margin)
	case o.BorrowAhead < 0:
		return o, fmt.Errorf("%w: negative borrow-ahead %v", ErrInvalidConfig, o.BorrowAhead)
	case o.MaxClockOffset < 0:
		return o, fmt.Errorf("%w: negative clock-offset bound %v", ErrInvalidConfig, o.MaxClockOffset)
	case len(o.Owner) > 128:
		return o, fmt.Errorf("%w: owner longer than 128 bytes", ErrInvalidConfig)
	}
	return o, nil
}

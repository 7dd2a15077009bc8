package node_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/internal/testclock"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/testdb"
)

// TestLeaseExpiryByStoreClock: expiry is the store's, never the holder's:
// a holder whose clock is an hour behind still holds its ID, kept by
// renewals past its TTL, and the next claimer gets the next ID.
func TestLeaseExpiryByStoreClock(t *testing.T) {
	t.Parallel()
	for _, sm := range stores() {
		t.Run(sm.name, func(t *testing.T) {
			s := sm.make(t)
			ctx := context.Background()
			// A TTL whose renewals may each take 1.1 s (TTL - Margin -
			// RenewEvery), so that a busy machine does not fence A.
			o := short(t, 1)
			o.TTL, o.RenewEvery, o.Margin = 2*time.Second, 400*time.Millisecond, 500*time.Millisecond
			o.Gen = append(o.Gen, generator.WithClock(testclock.Offset{D: -time.Hour}))
			a, err := s.lease(ctx, o)
			require.NoError(t, err)
			defer a.Close(ctx)
			time.Sleep(o.TTL + 200*time.Millisecond) // renewed meanwhile
			require.NoError(t, a.Fence())
			b, err := s.lease(ctx, short(t, 1))
			require.NoError(t, err)
			defer b.Close(ctx)
			require.NotEqual(t, a.Node(), b.Node())
			_, err = s.lease(ctx, short(t, 1))
			require.ErrorIs(t, err, node.ErrExhausted)
		})
	}
}

// TestLeaseOptionsDefaults checks the zero LeaseOptions as documented.
func TestLeaseOptionsDefaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, err := node.NewLease(ctx, sqllease.NewStore(testdb.SQLite(t), sqllease.StoreOptions{}), node.LeaseOptions{})
	require.NoError(t, err)
	defer l.Close(ctx)
	o := l.Options()
	require.Equal(t, 60*time.Second, o.MaxOutage)
	require.Equal(t, 4*time.Second, o.RenewEvery)
	require.Equal(t, 2*time.Second, o.Margin)
	require.Equal(t, 66*time.Second, o.TTL, "MaxOutage + RenewEvery + Margin")
	require.NotEmpty(t, o.Owner)
	require.Equal(t, o.Owner, l.Stats().Owner)
	require.Equal(t, 4*time.Second, l.CloseTimeout(), "max(RenewEvery, 1 s)")
}

// TestLeaseOptionsMaxOutage: how MaxOutage and TTL derive each other, and
// the settings refused, each naming its field.
func TestLeaseOptionsMaxOutage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	soon := generator.Twitter().Spec()
	soon.Name, soon.TimeBits, soon.Unit = "ends-soon", 12, time.Second
	soon.Epoch = time.Now().Add(-4096*time.Second + 10*time.Minute) // ends in 10 minutes
	endsSoon, err := generator.NewLayout(soon)
	require.NoError(t, err)
	for _, c := range []struct {
		name                    string
		o                       node.LeaseOptions
		gen                     []generator.SnowflakeOption
		ttl, renew, margin, out time.Duration
		refused                 string // the field the error names
	}{
		{name: "zero", ttl: 66 * time.Second, renew: 4 * time.Second, margin: 2 * time.Second, out: time.Minute},
		{name: "outage", o: node.LeaseOptions{MaxOutage: 10 * time.Second},
			ttl: 16 * time.Second, renew: 4 * time.Second, margin: 2 * time.Second, out: 10 * time.Second},
		{name: "outage-renew-margin", o: node.LeaseOptions{MaxOutage: 2 * time.Minute, RenewEvery: 10 * time.Second, Margin: 5 * time.Second},
			ttl: 135 * time.Second, renew: 10 * time.Second, margin: 5 * time.Second, out: 2 * time.Minute},
		{name: "ttl-as-before", o: node.LeaseOptions{TTL: 12 * time.Second},
			ttl: 12 * time.Second, renew: 4 * time.Second, margin: 3 * time.Second, out: 5 * time.Second},
		{name: "ttl-and-outage", o: node.LeaseOptions{TTL: 12 * time.Second, MaxOutage: 5 * time.Second},
			ttl: 12 * time.Second, renew: 4 * time.Second, margin: 3 * time.Second, out: 5 * time.Second},
		{name: "ttl-below-outage", o: node.LeaseOptions{TTL: 12 * time.Second, MaxOutage: 5*time.Second + 1}, refused: "MaxOutage"},
		{name: "negative", o: node.LeaseOptions{MaxOutage: -time.Second}, refused: "MaxOutage"},
		{name: "beyond-the-ttl-field", o: node.LeaseOptions{MaxOutage: 100 * 365 * 24 * time.Hour}, refused: "MaxOutage"},
		{name: "ttl-beyond-the-field", o: node.LeaseOptions{TTL: 100 * 365 * 24 * time.Hour}, refused: "TTL"},
		{name: "beyond-the-layout", o: node.LeaseOptions{MaxOutage: 10 * time.Minute},
			gen: []generator.SnowflakeOption{generator.WithLayout(endsSoon)}, refused: "MaxOutage"},
		{name: "within-the-layout", gen: []generator.SnowflakeOption{generator.WithLayout(endsSoon)},
			ttl: 66 * time.Second, renew: 4 * time.Second, margin: 2 * time.Second, out: time.Minute},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			l, err := node.NewLease(ctx, newMemStore(), c.o, c.gen...)
			if c.refused != "" {
				require.ErrorIs(t, err, generator.ErrInvalidConfig)
				require.Contains(t, err.Error(), c.refused)
				return
			}
			require.NoError(t, err)
			defer l.Close(ctx)
			o := l.Options()
			require.Equal(t, []time.Duration{c.ttl, c.renew, c.margin, c.out}, []time.Duration{o.TTL, o.RenewEvery, o.Margin, o.MaxOutage})
		})
	}
}

// TestLeaseRecoversAfterExpiry: an expired lease whose ID nobody took
// becomes valid again at the next successful renewal (ErrLeaseExpired's
// doc).
func TestLeaseRecoversAfterExpiry(t *testing.T) {
	t.Parallel()
	for _, s := range proxiedStores() {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			ps := s.make(t)
			ctx := context.Background()
			o := leaseConf{Layout: layout(t, 2), LeaseOptions: node.LeaseOptions{TTL: 3 * time.Second, Margin: 2 * time.Second, RenewEvery: 100 * time.Millisecond}}
			l, err := ps.viaFn(ctx, o)
			require.NoError(t, err)
			defer l.Close(ctx)
			g, err := node.NewSnowflake(ctx, l)
			require.NoError(t, err)
			ps.proxy.Blackhole()
			// Trusted until TTL - Margin after the last renewal started;
			// healSlack absorbs a busy machine.
			deadline := time.Now().Add(o.TTL - o.Margin + healSlack)
			for !errors.Is(l.Fence(), node.ErrLeaseExpired) {
				require.True(t, time.Now().Before(deadline), "the lease never expired")
				time.Sleep(5 * time.Millisecond)
			}
			_, err = g.Next()
			require.ErrorIs(t, err, node.ErrLeaseExpired)
			ps.proxy.Restore() // well before the store's expiry, 3 s after the last renewal
			// A renewal in flight into the blackhole gives up after at
			// most TTL - Margin; the next comes RenewEvery/4 later.
			deadline = time.Now().Add(o.TTL - o.Margin + o.RenewEvery + healSlack)
			for l.Fence() != nil {
				require.True(t, time.Now().Before(deadline), "the lease never recovered: %v", l.Fence())
				time.Sleep(5 * time.Millisecond)
			}
			_, err = g.Next()
			require.NoError(t, err)
		})
	}
}

func TestNewLeaseNilStore(t *testing.T) {
	t.Parallel()
	_, err := node.NewLease(context.Background(), nil, node.LeaseOptions{})
	require.ErrorIs(t, err, generator.ErrInvalidConfig)
}

package node_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/internal/failovertest"
	"github.com/idkit-go/idkit/generator/node/sqllease"
	"github.com/idkit-go/idkit/internal/tcpproxy"
	"github.com/idkit-go/idkit/internal/testservers"
)

// tracing forwards the Store contract to another store and counts what
// passes, as a user's tracing or metrics wrapper does.
type tracing struct {
	node.Store
	n *traced
}

type traced struct {
	claims, renewals, releases atomic.Int64
	forgot                     atomic.Int64 // claims that recorded a loss
	renewForgot                atomic.Int64 // renewals that failed with ErrForgot
}

func (s tracing) Claim(ctx context.Context, c node.Claim) (node.Claimed, error) {
	s.n.claims.Add(1)
	r, err := s.Store.Claim(ctx, c)
	if err == nil && r.Forgot {
		s.n.forgot.Add(1)
	}
	return r, err
}

func (s tracing) Renew(ctx context.Context, r node.Renewal) (node.Seen, error) {
	s.n.renewals.Add(1)
	seen, err := s.Store.Renew(ctx, r)
	if errors.Is(err, node.ErrForgot) {
		s.n.renewForgot.Add(1)
	}
	return seen, err
}

func (s tracing) Release(ctx context.Context, r node.Release) error {
	s.n.releases.Add(1)
	return s.Store.Release(ctx, r)
}

// TestFailoverThroughWrapper: the PostgreSQL failover of
// TestFailoverPostgres (the moved variant, default protection, with
// AllowSplitBrain as there), with every
// holder's store wrapped in a forwarding wrapper. The wrapper sees the
// promoted server's claim record the loss and the old holder's renewal
// fail with ErrForgot, and no ID repeats: a wrapper keeps every guarantee.
func TestFailoverThroughWrapper(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	primary := testservers.StartPostgres(t)
	link := tcpproxy.Start(t, primary.Addr())
	replica := primary.Replica(t, link.Addr())
	n := &traced{}
	r := failovertest.Run(t, failovertest.Setup{
		Store: func(t *testing.T, addr string) node.Store {
			return tracing{failoverStoreWith(t, "pgx", testservers.PostgresDSN(addr), sqllease.StoreOptions{AllowSplitBrain: true}), n}
		},
		Primary:  primary.Addr(),
		Replica:  replica.Addr(),
		CaughtUp: func(t *testing.T) { primary.CaughtUp(t, replica) },
		Detach:   func(t *testing.T) { link.Cut() },
		Promote:  func(t *testing.T) { replica.Promote(t) },
		Kill:     func(t *testing.T) { primary.Kill(t) },
	}, failovertest.Moved, true)
	t.Logf("%d duplicates of %d IDs; %d claims (%d recorded a loss), %d renewals (%d found the store forgot), %d releases",
		r.Duplicates, r.IDs, n.claims.Load(), n.forgot.Load(), n.renewals.Load(), n.renewForgot.Load(), n.releases.Load())
	if r.Duplicates != 0 {
		t.Errorf("%d duplicate IDs through a forwarding wrapper", r.Duplicates)
	}
	if n.forgot.Load() == 0 {
		t.Error("no claim through the wrapper recorded the failover")
	}
	if n.renewForgot.Load() == 0 {
		t.Error("no renewal through the wrapper found the store forgot writes")
	}
	if n.releases.Load() == 0 {
		t.Error("no release went through the wrapper")
	}
}

package redislease_test

import (
	"context"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/redislease"
)

// hung is a store whose claims hang until release is closed, as a claim
// whose connection stalls before a failover and reaches the new master
// after it.
type hung struct {
	node.Store
	release chan struct{}
}

func (h hung) Claim(ctx context.Context, c node.Claim) (node.Claimed, error) {
	<-h.release
	return h.Store.Claim(ctx, c)
}

// TestClaimHeldAcrossFailover: B's claim is sent while A holds node 0 on
// the master, hangs while A keeps renewing, and reaches the promoted
// replica (which never saw A's claim) after the failover. B's wait must
// count from when its claim reached the new master, not from when it was
// sent.
func TestClaimHeldAcrossFailover(t *testing.T) {
	p := startPair(t)
	o := faultOptions()
	p.detach(t)
	// A waits for no replica: with the defaults its claim on a master
	// that has had a replica and lost it is refused (its first replica
	// created the backlog).
	a := issue(storeVia(t, p.primary.Addr(), "leases", redislease.StoreOptions{Replicas: -1}), o)
	a.started(t, 10*time.Second)
	h := hung{Store: storeVia(t, p.replica.Addr(), "leases", redislease.StoreOptions{}), release: make(chan struct{})}
	b := issue(h, o)
	time.Sleep(o.TTL * 3 / 4) // A renews meanwhile
	p.replica.Do(t, "REPLICAOF", "NO", "ONE")
	p.primary.Kill(t) // A issues until its lease lapses
	close(h.release)
	b.started(t, 10*time.Second)
	time.Sleep(o.TTL / 2)
	report(t, a, b)
}

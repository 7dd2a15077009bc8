package redislease_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/redislease"
	"github.com/idkit-go/idkit/internal/testservers"
)

// TestRestartWithDataKeepsHolders restarts a Redis server with its AOF
// data under holders issuing flat out: the restarted server's replication
// ID is new, so renewals fail with ErrForgot, but each holder's claim
// finds its record as it saw it (Claimed.Kept) and keeps its node and
// sequence without waiting out the horizon. No ID repeats.
func TestRestartWithDataKeepsHolders(t *testing.T) {
	r := testservers.StartRedis(t, "--appendonly", "yes", "--appendfsync", "always")
	s := storeVia(t, r.Addr(), "idkit:kept", redislease.StoreOptions{})
	o := node.LeaseOptions{TTL: 6 * time.Second}
	var hs []*flat
	for range 3 {
		f := issue(s, o)
		f.started(t, 20*time.Second)
		hs = append(hs, f)
	}
	before := r.Info(t, "server", "run_id")
	time.Sleep(500 * time.Millisecond)
	r.Restart(t)
	if r.Info(t, "server", "run_id") == before {
		t.Fatal("the server did not restart")
	}
	if v := r.Do(t, "HGET", "idkit:kept", "seeded"); v == "" {
		t.Fatal("the restarted server lost its data")
	}
	time.Sleep(3 * o.TTL / 2) // every holder renews (TTL/3 apart) at least once
	var all []int64
	for i, f := range hs {
		gap := f.longestGap()
		ids := f.halt()
		t.Logf("holder %d: %d IDs, longest gap %v", i, len(ids), gap)
		if gap >= time.Second {
			t.Errorf("holder %d stopped for %v", i, gap)
		}
		all = append(all, ids...)
	}
	slices.Sort(all)
	n := len(all)
	rep := n - len(slices.Compact(all))
	t.Logf("%d IDs in all, %d repeated", n, rep)
	if rep != 0 {
		t.Errorf("%d IDs repeated", rep)
	}
}

// TestKeptOnlyAsSeen: a claim sets Kept only if it took Prefer and found
// the node's record naming the owner at the version the lease saw or a
// later one (a renewal whose answer was lost); it records the loss all the
// same.
func TestKeptOnlyAsSeen(t *testing.T) {
	r := testservers.StartRedis(t)
	c := redis.NewClient(&redis.Options{Addr: r.Addr()})
	t.Cleanup(func() { c.Close() })
	const key = "idkit:keptseen"
	s := redislease.NewStore(c, redislease.StoreOptions{Key: key})
	ctx := context.Background()
	ttl := 10 * time.Second
	claim := func(owner string, prefer int64, seen node.Seen) node.Claimed {
		t.Helper()
		got, err := s.Claim(ctx, node.Claim{Owner: owner, TTL: ttl, MaxNode: 7, Prefer: prefer,
			Bound: time.Now().UnixNano(), Horizon: 2 * ttl, Lost: true, Seen: seen})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	first, err := s.Claim(ctx, node.Claim{Owner: "a", TTL: ttl, MaxNode: 7, Prefer: -1, Bound: time.Now().UnixNano(), Horizon: 2 * ttl})
	if err != nil {
		t.Fatal(err)
	}
	if first.Kept {
		t.Error("a first claim is Kept")
	}
	n := first.Node

	// As the lease saw it: kept, and the loss recorded.
	again := claim("a", n, first.Seen)
	if again.Node != n || !again.Kept {
		t.Fatalf("claim of the record as seen: node %d (want %d), Kept %v", again.Node, n, again.Kept)
	}
	if !again.Forgot || again.Floor <= time.Now().UnixNano() {
		t.Errorf("claim after a loss recorded no loss: Forgot %v, floor %v", again.Forgot, time.Unix(0, again.Floor))
	}

	// The version moved on (a renewal whose answer the lease did not
	// read): kept.
	time.Sleep(2 * time.Millisecond)
	if _, err := s.Renew(ctx, node.Renewal{Node: n, Owner: "a", TTL: ttl, Bound: time.Now().UnixNano(), Horizon: 2 * ttl, Seen: again.Seen}); err != nil {
		t.Fatal(err)
	}
	moved := claim("a", n, again.Seen)
	if moved.Node != n || !moved.Kept {
		t.Errorf("claim after the version moved on: node %d (want %d), Kept %v", moved.Node, n, moved.Kept)
	}

	// The mark went back (the server lost the renewal the lease saw, as
	// with appendfsync everysec): not kept.
	c.HSet(ctx, key, "h:"+itoa(n), moved.Seen.Version-1000)
	if got := claim("a", n, moved.Seen); got.Node != n || got.Kept {
		t.Errorf("claim after the mark went back: node %d (want %d), Kept %v", got.Node, n, got.Kept)
	}

	// A lease that saw no version: not kept.
	if got := claim("a", n, node.Seen{Ident: again.Seen.Ident}); got.Kept {
		t.Error("claim with no version seen is Kept")
	}

	// The record missing: taken, not kept.
	cur := claim("a", n, node.Seen{})
	c.HDel(ctx, key, "o:"+itoa(n), "e:"+itoa(n), "h:"+itoa(n))
	if got := claim("a", n, cur.Seen); got.Node != n || got.Kept {
		t.Errorf("claim of a missing record: node %d (want %d), Kept %v", got.Node, n, got.Kept)
	}

	// Another owner's record at the version seen: not taken, not kept.
	b := claim("b", -1, node.Seen{})
	if got := claim("a", b.Node, b.Seen); got.Node == b.Node || got.Kept {
		t.Errorf("claim of b's node: node %d, Kept %v", got.Node, got.Kept)
	}

	// Another node taken (Prefer out of range): not kept.
	cur = claim("c", -1, node.Seen{})
	if got := claim("c", 99, cur.Seen); got.Kept {
		t.Errorf("claim that took node %d, not Prefer, is Kept", got.Node)
	}
}

// Package nodetest is the conformance suite of lease stores: the faults a
// [node.Store] must survive without a [node.Lease] returning an ID twice,
// run on real servers through a harness the store's tests supply.
//
// Each case starts fresh servers, runs two or more holders (a store of
// their own, [node.NewLease], [node.NewSnowflake]) issuing as fast as they
// can through the faults, then counts the IDs more than one holder
// returned, which must be none. The cases: failovers to an asynchronous
// replica (the holder's path moving at once or after its lease lapsed, the
// first claim lost with the table, clocks skewed by just under
// MaxClockOffset + Margin, a lapsed holder renewing on the promoted
// replica, a claim held in the network across the failover, holders of
// different TTLs whose longer horizon the replica knew or lost), split
// brain (the old primary serving on, alone, with a second replica, or
// restarted empty), restarts with and without data, restores of a copy
// under live holders and with the operator step, corrupt fields, the
// store's identity deleted, eight handles creating the store at once,
// partitions that heal and paused holders.
//
// # Writing a harness
//
// A store's test calls [Run] with a function returning a [Harness] for one
// case; the cases run in parallel, each with its own:
//
//	func TestConformance(t *testing.T) {
//		nodetest.Run(t, func() nodetest.Harness {
//			var srv *myServer // this case's
//			return nodetest.Harness{
//				Start: func(t *testing.T) { srv = startMyServer(t) },
//				Store: func(t *testing.T, dial func(ctx context.Context, network, addr string) (net.Conn, error)) node.Store {
//					c := mydb.NewClient(mydb.Options{Addr: srv.Addr(), Dialer: dial})
//					t.Cleanup(func() { c.Close() })
//					return mystore.New(c)
//				},
//				Restart:     func(t *testing.T, keep bool) { srv.Restart(t, keep) },
//				Unsupported: map[string]string{"Replicate": "the server has no replicas"},
//			}
//		})
//	}
//
// Store must make every connection of the client with dial: the suite
// cuts, holds and heals each holder's link through it, and pins a holder
// to the servers it reaches now for a split brain. Start must give fresh
// servers (or a fresh namespace): a case assumes an empty store. A
// capability left nil skips the cases that need it, with the reason in
// Unsupported. A replicated store's harness starts replicas in Replicate,
// routes new connections to the promoted replica in Route, and kills the
// old primary in Kill; Snapshot and its restore work on the store's
// records as a backup and restore do. Each case takes seconds (lease TTLs
// of 1 to 6 s).
package nodetest

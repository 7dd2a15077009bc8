// Package nodetest is the conformance suite of lease stores: the protocol
// of [node.Store], call by call, and the faults a store must survive
// without a [node.Lease] returning an ID twice, run on real servers
// through a harness the store's tests supply.
//
// # Protocol cases
//
// The cases named Protocol/... need only Harness.Store, so a first draft
// of a store (DynamoDB, MongoDB) gets a verdict from a harness of one
// field, as a file system does from testing/fstest.TestFS. Each calls
// Claim, Renew and Release of one fresh store directly and checks every
// answer against the method docs of [node.Store], errors with
// [errors.Is]: claim-prefer (the preferred node when free, already the
// claimer's own or released; another node when it is held; a preference
// out of [0, MaxNode] ignored; every node claimed within [0, MaxNode]),
// claim-prefer-expired (with every node held, claims fail with
// [node.ErrExhausted] until the preferred node's short claim expired,
// then take it, never before its TTL), floor (a claim's floor is the
// node's mark: the bound of earlier claims and renewals, the mark of a
// release), exhausted (every node held: an error wrapping
// [node.ErrExhausted] that writes nothing), release (exact sets the mark
// lower, otherwise it only rises; another owner's release changes nothing
// and returns nil; a released node is free to another owner),
// marks-only-rise, renew-other-owner ([node.ErrLeaseLost], not
// [node.ErrLapsed]), renew-lapsed (the owner's renewal after its TTL:
// [node.ErrLeaseLost] and [node.ErrLapsed]), renew-seen (a renewal's Seen
// is accepted by the next; another identity, a version above the
// record's, a node never claimed: [node.ErrForgot]), horizon and
// horizon-renewal (a claim after a loss waits out the largest horizon any
// claim or renewal gave, and records a store-wide mark), lapsed-claim
// (the largest horizon too, with no store-wide mark), claim-kept
// ([node.Claimed].Kept exactly when the claim took its preferred node
// and found its record naming the claimer at a version not below the
// claim's Seen, also after a renewal whose answer was lost: not for a
// record released, behind the Seen or missing, nor a first claim) and claim-kept-other-node (not Kept for a node other than
// the one preferred). A store that does not set Kept yet leaves
// Harness.SetsKept false, and the Kept cases then check only that it is
// never set where it must not be.
//
// With Harness.Start nil, every call of Store within one case (one t)
// must reach the same store, fresh for that case: a table, key, prefix or
// namespace of its own, made by the function Run calls for the case's
// harness. The cases cut no connection, so a harness for them alone may
// ignore dial. Their timing follows from the TTLs they set, never from a
// quiet machine: live claims have a TTL of a minute, and the two that
// expire have 2 s (whole seconds, etcd's minimum), waited past by the
// clock (a store that expires by watching, as kubelease does, sees the
// record unchanged through claims that fail meanwhile). Floors are
// compared with the suite's clock with 1 s to spare, so the store's clock
// may read up to a second behind.
//
//	func TestProtocol(t *testing.T) {
//		nodetest.Run(t, func() nodetest.Harness {
//			table := newTableName() // this case's
//			return nodetest.Harness{
//				Store: func(t *testing.T, _ func(ctx context.Context, network, addr string) (net.Conn, error)) node.Store {
//					return mystore.New(sharedClient, table)
//				},
//			}
//		})
//	}
//
// Such a harness also runs the three fault cases that need no capability
// (EightHandles, Partition, Pause), which do need dial; a store whose
// fault cases run elsewhere names them in Unsupported, and a fault harness
// may name the group "Protocol" to leave the protocol cases to a lighter
// one.
//
// # Fault cases
//
// Each fault case starts fresh servers, runs two or more holders (a store of
// their own, [node.NewLease], [node.NewSnowflake]) issuing as fast as they
// can through the faults, then counts the IDs more than one holder
// returned, which must be none. The cases: failovers to an asynchronous
// replica (the holder's path moving at once or after its lease lapsed, the
// first claim lost with the table, clocks skewed by just under
// MaxClockOffset + Margin, a lapsed holder renewing on the promoted
// replica, a claim held in the network across the failover, holders of
// different TTLs, or of different MaxOutage values with the TTLs derived
// from them, whose longer horizon the replica knew or lost), split brain
// (the old primary serving on, alone, with a second replica, or restarted
// empty), restarts with and without data, restores of a copy under live
// holders and with the operator step (after holders of different TTLs or
// MaxOutage values), corrupt fields, the
// store's identity deleted, eight handles creating the store at once,
// partitions that heal and paused holders.
//
// # Writing a harness
//
// A store's fault test calls [Run] with a function returning a [Harness]
// for one case; the cases run in parallel, each with its own:
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

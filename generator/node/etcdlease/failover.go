package etcdlease

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/idkit-go/idkit/generator/node"
)

// Noticing a store that went back (see
// https://github.com/idkit-go/idkit/blob/main/docs/leases.md#etcd): Raft
// keeps every acknowledged write through a leader failover, but a
// snapshot restore rewinds the keys. A lease remembers the cluster ID and
// its node's mark after its last request (the mark only rises while the
// lease holds the node); a renewal that finds another cluster ID, a lower
// mark (read also when the owner key is gone) or a revision below one its
// store saw fails with node.ErrForgot. A store also remembers the
// cluster ID and the highest revision its requests saw: a claim answered
// with another cluster ID, or with a revision below one seen before the
// claim was sent, found a loss. So does a claim that finds the key
// Prefix+"restored", which an operator puts after a restore, before
// starting holders. An answer that shows a loss makes the store adopt its
// cluster ID and revision at once, and the loss stays pending until a
// claim has recorded the store-wide mark Prefix+"mark": the claimer's
// clock when it sends the mark (after the claim's answer arrived) plus the
// horizon, the longest TTL + BorrowAhead + unit + MaxClockOffset of any
// holder, which every claim and renewal raises in Prefix+"horizon".

// meta is what a claim's transaction read.
type meta struct {
	pre, post int64 // the node's mark before and after the claim
	mark, hz  int64 // the store-wide mark and horizon (ns) before the claim
	restored  int64 // the mod revision of the restored key, 0 if none
	// badOwn is the node's mark key if its value is not a mark; bad the
	// store-wide mark or horizon key if its value is not one.
	badOwn, bad *mvccpb.KeyValue
	cluster     uint64
	rev         int64
}

// claimOps are the operations of a transaction that claims node n: the
// owner key, the node's mark read then raised, the store-wide mark and
// horizon read, the horizon raised, the restored key read.
func (s *store) claimOps(n int64, owner string, id clientv3.LeaseID, bound int64, horizon time.Duration) []clientv3.Op {
	hk := s.key(s.marks, n)
	return []clientv3.Op{
		clientv3.OpPut(s.key(s.owners, n), owner, clientv3.WithLease(id)),
		clientv3.OpGet(hk),
		raise(hk, bound),
		clientv3.OpGet(s.markKey),
		clientv3.OpGet(s.hzKey),
		raise(s.hzKey, horizon.Nanoseconds()),
		clientv3.OpGet(s.restoredKey),
	}
}

// read returns what the successful transaction of claimOps read.
func (s *store) read(r *clientv3.TxnResponse, bound int64) *meta {
	pre, ok := parseMark(kvs(r.Responses[1]), maxMark)
	m := &meta{
		pre:     pre,
		post:    max(pre, bound),
		cluster: r.Header.ClusterId,
		rev:     r.Header.Revision,
	}
	if !ok {
		m.badOwn = kvs(r.Responses[1])[0]
	}
	var okMark, okHz bool
	m.mark, okMark = parseMark(kvs(r.Responses[3]), maxMark)
	m.hz, okHz = parseMark(kvs(r.Responses[4]), maxHorizon)
	if !okMark {
		m.bad = kvs(r.Responses[3])[0]
	} else if !okHz {
		m.bad = kvs(r.Responses[4])[0]
	}
	if kv := kvs(r.Responses[6]); len(kv) > 0 {
		m.restored = kv[0].ModRevision
	}
	return m
}

// corruptErr is the error for key kv, whose value is not a mark or is
// out of range.
func corruptErr(kv *mvccpb.KeyValue) error {
	v := string(kv.Value)
	if len(v) > 40 {
		v = v[:40]
	}
	return fmt.Errorf("%w: key %s holds %q, not a mark (19 decimal digits, a mark at most %d, a horizon at most %d)", node.ErrCorrupt, kv.Key, v, int64(maxMark), int64(maxHorizon))
}

// view is what the store's requests had seen when one was sent.
type view struct {
	cluster uint64
	rev     int64
	line    uint64 // how many new lines of history the store had adopted
}

// before returns what the store's requests saw so far.
func (s *store) before() view {
	s.seenMu.Lock()
	defer s.seenMu.Unlock()
	return view{s.cluster, s.rev, s.lines}
}

// observe records an answer's cluster ID and revision, for a request
// sent when the store had seen v. back reports a loss: the answer shows
// another cluster ID than v's, or a revision below v's. The store then
// adopts the answer's line of history at once, so that requests sent
// after it are compared with the restored history (a holder that healed
// is not failed again until the revision catches up), and counts the
// loss, which stays pending until a claim has written the store-wide mark
// (recorded). pending is the count of losses found so far while one is
// not recorded, else 0. An answer to a request sent before the store
// adopted a new line may come from the old one, and moves nothing.
func (s *store) observe(v view, id uint64, at int64) (back bool, pending uint64) {
	s.seenMu.Lock()
	defer s.seenMu.Unlock()
	back = v.cluster != 0 && (id != v.cluster || at < v.rev)
	switch {
	case back:
		s.losses++
		s.lines++
		s.cluster, s.rev = id, at
	case s.cluster == 0:
		s.cluster, s.rev = id, at
	case v.line == s.lines && id == s.cluster:
		s.rev = max(s.rev, at)
	}
	if s.losses > s.recordedLosses {
		pending = s.losses
	}
	return back, pending
}

// recorded notes that a store-wide mark covers the first n losses.
func (s *store) recorded(n uint64) {
	s.seenMu.Lock()
	defer s.seenMu.Unlock()
	s.recordedLosses = max(s.recordedLosses, n)
}

func ident(cluster uint64) string { return strconv.FormatUint(cluster, 16) }

// Claim claims a node following the rule above.
func (s *store) Claim(ctx context.Context, c node.Claim) (node.Claimed, error) {
	v := s.before()
	n, m, err := s.grantAndClaim(ctx, c.Owner, c.TTL, c.MaxNode, c.Prefer, c.Bound, c.Horizon)
	if err != nil {
		return node.Claimed{}, err
	}
	arrived := time.Now()
	_, pending := s.observe(v, m.cluster, m.rev)
	log := c.Log
	if log == nil {
		log = slog.Default()
	}
	if m.bad != nil {
		// Without the store-wide mark or horizon the claim cannot know
		// its floor: give the node back.
		_ = s.Release(context.WithoutCancel(ctx), node.Release{Node: n, Owner: c.Owner, Mark: m.post})
		return node.Claimed{}, fmt.Errorf("etcdlease: claim node %d: %w", n, corruptErr(m.bad))
	}
	out := node.Claimed{Node: n, Floor: max(m.pre, m.mark), Seen: node.Seen{Ident: ident(m.cluster), Version: m.post}}
	hz := max(m.hz, c.Horizon.Nanoseconds())
	if kv := m.badOwn; kv != nil {
		// The node's mark is unknown: this claim waits the horizon, and
		// replaces the value, which raise cannot.
		hk := s.key(s.marks, n)
		_, err := s.c.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(hk), "=", kv.ModRevision)).
			Then(clientv3.OpPut(hk, mark(m.post))).Commit()
		if err != nil {
			return node.Claimed{}, fmt.Errorf("etcdlease: claim node %d: replace the corrupt mark: %w", n, err)
		}
		out.Floor = max(out.Floor, arrived.UnixNano()+hz)
		log.Warn("lease store: corrupt mark replaced by a claim, which waits out earlier holders", "error", corruptErr(kv), "floor", time.Unix(0, out.Floor))
	}
	if c.Lost || pending != 0 || m.restored != 0 {
		// The mark counts from when it is sent: after the claim's answer
		// arrived, which is no earlier than when the claim reached etcd,
		// and after the answer that found the loss, if another request's.
		mark := time.Now().UnixNano() + hz
		mv := s.before()
		r, err := s.c.Txn(ctx).If(
			clientv3.Compare(clientv3.ModRevision(s.restoredKey), "=", m.restored),
		).Then(raise(s.markKey, mark), clientv3.OpDelete(s.restoredKey)).Else(raise(s.markKey, mark)).Commit()
		if err == nil {
			if back, _ := s.observe(mv, r.Header.ClusterId, r.Header.Revision); back {
				err = fmt.Errorf("%w: the store went back again", node.ErrForgot)
			}
		}
		if err != nil {
			// The loss stays pending, so that the next claim records it;
			// the node goes back (or its etcd lease expires).
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.TTL)
			_ = s.Release(rctx, node.Release{Node: n, Owner: c.Owner, Mark: m.post})
			cancel()
			return node.Claimed{}, fmt.Errorf("etcdlease: claim node %d: record the mark: %w", n, err)
		}
		if pending != 0 {
			s.recorded(pending)
		}
		out.Floor, out.Forgot = max(out.Floor, mark), true
		log.Warn("lease store forgot writes (a restore): waiting out earlier holders", "prefix", s.owners, "floor", time.Unix(0, mark))
	}
	if c.Lapsed {
		out.Floor = max(out.Floor, arrived.UnixNano()+hz)
	}
	return out, nil
}

// Renew renews a node if the keys prove they hold what the lease saw. The
// node's mark is read whether or not the owner key
// still names the lease, so that a restore that dropped the owner key
// (and rewound the mark) is a loss, not a node taken by another holder;
// so is an answer with a revision below one the store saw before the
// request (a snapshot restored without --bump-revision).
func (s *store) Renew(ctx context.Context, r node.Renewal) (node.Seen, error) {
	if err := s.check(r.TTL); err != nil {
		return node.Seen{}, err
	}
	if err := checkHorizon(r.Horizon); err != nil {
		return node.Seen{}, err
	}
	n, owner, ttl := r.Node, r.Owner, r.TTL
	ok, hk := s.key(s.owners, n), s.key(s.marks, n)
	v := s.before()
	// A renewal that cannot prove continuity writes nothing: another
	// cluster ID than the store's answers showed is refused unsent, and
	// the transaction writes only if the mark is not below the one seen.
	if v.cluster != 0 && r.Seen.Ident != "" && r.Seen.Ident != ident(v.cluster) {
		return node.Seen{}, fmt.Errorf("etcdlease: renew node %d: %w: the cluster ID is %s, the lease saw %s", n, node.ErrForgot, ident(v.cluster), r.Seen.Ident)
	}
	cmps := []clientv3.Cmp{clientv3.Compare(clientv3.Value(ok), "=", owner)}
	if r.Seen.Version > 0 {
		// Not below the mark seen (etcd compares no ">=").
		cmps = append(cmps, clientv3.Compare(clientv3.Value(hk), ">", mark(r.Seen.Version-1)))
	}
	res, err := retry(ctx, ttl, func(ctx context.Context) (*clientv3.TxnResponse, error) {
		return s.c.Txn(ctx).If(cmps...).Then(
			clientv3.OpGet(ok),
			clientv3.OpGet(hk),
			raise(hk, r.Bound),
			raise(s.hzKey, r.Horizon.Nanoseconds()),
		).Else(
			clientv3.OpGet(ok),
			clientv3.OpGet(hk),
		).Commit()
	})
	if err != nil {
		return node.Seen{}, fmt.Errorf("etcdlease: renew node %d: %w", n, err)
	}
	id := ident(res.Header.ClusterId)
	back, _ := s.observe(v, res.Header.ClusterId, res.Header.Revision)
	if r.Seen.Ident != "" && r.Seen.Ident != id {
		return node.Seen{}, fmt.Errorf("etcdlease: renew node %d: %w: the cluster ID is %s, the lease saw %s", n, node.ErrForgot, id, r.Seen.Ident)
	}
	if back {
		return node.Seen{}, fmt.Errorf("etcdlease: renew node %d: %w: the revision %d is below %d, which the store saw", n, node.ErrForgot, res.Header.Revision, v.rev)
	}
	pre, valid := parseMark(kvs(res.Responses[1]), maxMark)
	if !valid {
		return node.Seen{}, fmt.Errorf("etcdlease: renew node %d: %w: %w", n, node.ErrForgot, corruptErr(kvs(res.Responses[1])[0]))
	}
	if pre < r.Seen.Version {
		return node.Seen{}, fmt.Errorf("etcdlease: renew node %d: %w: its mark %d is below %d, which the lease saw", n, node.ErrForgot, pre, r.Seen.Version)
	}
	cur := kvs(res.Responses[0])
	switch {
	case len(cur) == 0:
		// etcd deletes the owner key when its etcd lease expires: the
		// record named owner until it expired (a lapse), or owner
		// released it.
		return node.Seen{}, fmt.Errorf("%w: %w: node %d of %s expired (its owner key is gone)", node.ErrLeaseLost, node.ErrLapsed, n, owner)
	case !res.Succeeded:
		return node.Seen{}, fmt.Errorf("%w: node %d is no longer held by %s", node.ErrLeaseLost, n, owner)
	}
	seen := node.Seen{Ident: id, Version: max(pre, r.Bound)}
	return seen, s.keepAlive(ctx, n, owner, ttl, clientv3.LeaseID(kvs(res.Responses[0])[0].Lease))
}

// Package etcdlease keeps [node.Lease] records in etcd: [NewStore] returns
// a [node.Store] to pass to [node.NewLease], which claims a node ID and
// returns an ordinary [*node.Lease], to use with [node.NewSnowflake] as an
// SQL or Redis lease is. It is a module of its own so that only programs
// using it compile the etcd client and gRPC.
//
// etcd commits every claim, high-water mark and release through Raft
// before it answers, and a new leader gives every lease its full TTL
// again, so a leader failover loses no acknowledged lease and no mark.
// A snapshot restore does rewind the keys: a renewal that finds another
// cluster ID or its node's mark lower than it saw fails, and the lease
// heals by a claim that waits out the longest horizon of the prefix's
// holders; so does the next claim after an operator puts the key
// Prefix+"restored". Expiry follows etcd's own leases, by the leader's
// clock.
// https://github.com/idkit-go/idkit/blob/main/docs/leases.md compares the
// stores.
package etcdlease

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
)

// defaultPrefix is the key prefix when [StoreOptions].Prefix is empty.
const defaultPrefix = "idkit/node_leases/"

// StoreOptions configures [NewStore].
type StoreOptions struct {
	// Prefix starts every key the store writes: Prefix+"o/N" holds node
	// N's owner, attached to the etcd lease of its claim, and Prefix+"h/N"
	// its high-water mark, kept without a lease after release or expiry.
	// Default "idkit/node_leases/". Never delete the h/ keys: a new
	// holder of a node issues only after its mark.
	Prefix string
}

// NewStore returns the [node.Store] of the keys under opts.Prefix in
// etcd; pass it to [node.NewLease]. One store may serve any number of
// leases, and should: its concurrent claims pass over each other's
// candidates.
//
// A claim grants an etcd lease of the TTL rounded up to whole seconds (or
// the server's minimum, if longer), then takes, in a transaction that
// compares the owner key's revision, the preferred node if it is free or
// already the owner's, and otherwise a free node at random. A node is free
// once its owner key is gone: released, or deleted by etcd when its lease
// expired. Renewal raises the mark and keeps the etcd lease alive; renewal
// and release act only if the owner key still names the owner. With a nil
// client every method returns an error wrapping [generator.ErrInvalidConfig].
// The client settings that keep renewals going when a member fails:
// https://github.com/idkit-go/idkit/blob/main/docs/leases.md#etcd.
func NewStore(client *clientv3.Client, opts StoreOptions) node.Store {
	p := opts.Prefix
	if p == "" {
		p = defaultPrefix
	}
	return &store{c: client, owners: p + "o/", marks: p + "h/", hzKey: p + "horizon", markKey: p + "mark", restoredKey: p + "restored",
		trying: map[int64]int{}, mine: map[int64]int64{}, sem: make(chan struct{}, 1)}
}

// store is the [node.Store] of one key prefix.
type store struct {
	c             *clientv3.Client
	owners, marks string // key prefixes
	// hzKey holds the longest horizon of the store's holders, markKey the
	// store-wide floor after a loss, restoredKey the operator's note that
	// the keys were restored (see failover.go).
	hzKey, markKey, restoredKey string

	// seenMu guards what the store's requests saw: the cluster ID and the
	// highest revision of the line of history they follow, the count of
	// losses found (each adopting a new line) and how many of them a
	// store-wide mark has recorded (see failover.go).
	seenMu         sync.Mutex
	cluster        uint64
	rev            int64
	lines          uint64
	losses         uint64
	recordedLosses uint64

	// mu guards what the store's own claims know of each other: the nodes
	// they are trying now, and those they took (with the revision of the
	// claim), which a listing of an earlier revision does not show.
	mu     sync.Mutex
	trying map[int64]int
	mine   map[int64]int64

	// sem serializes the reads of listing; mu guards the count of reads
	// begun, and the last listing read with its number.
	sem      chan struct{}
	reads    int64
	last     *listing
	lastRead int64
}

// mark encodes a high-water mark so that etcd's byte-wise comparison of
// values orders marks as numbers: 19 decimal digits, negative marks as 0.
func mark(ns int64) string { return fmt.Sprintf("%019d", max(ns, 0)) }

// raise sets key to m if it holds a smaller mark or does not exist. A
// value comparison with a missing key always fails in etcd, hence the
// second, nested test.
func raise(key string, m int64) clientv3.Op {
	v := mark(m)
	return clientv3.OpTxn(
		[]clientv3.Cmp{clientv3.Compare(clientv3.Value(key), "<", v)},
		[]clientv3.Op{clientv3.OpPut(key, v)},
		[]clientv3.Op{clientv3.OpTxn(
			[]clientv3.Cmp{clientv3.Compare(clientv3.Version(key), "=", 0)},
			[]clientv3.Op{clientv3.OpPut(key, v)}, nil)})
}

// seconds is the etcd lease TTL that covers ttl.
func seconds(ttl time.Duration) int64 { return max(int64((ttl+time.Second-1)/time.Second), 1) }

func (s *store) key(prefix string, n int64) string { return prefix + strconv.FormatInt(n, 10) }

func (s *store) check(ttl time.Duration) error {
	if s.c == nil {
		return fmt.Errorf("%w: nil etcd client", generator.ErrInvalidConfig)
	}
	if ttl <= 0 {
		return fmt.Errorf("%w: ttl %v", generator.ErrInvalidConfig, ttl)
	}
	return nil
}

// checkHorizon refuses a horizon the keys could not hold.
func checkHorizon(hz time.Duration) error {
	if hz > maxHorizon {
		return fmt.Errorf("%w: etcdlease: horizon %v (TTL + BorrowAhead + unit + MaxClockOffset) above %v", generator.ErrInvalidConfig, hz, time.Duration(maxHorizon))
	}
	return nil
}

// grantAndClaim grants an etcd lease and claims a node under it (see
// NewStore), returning what the claim's transaction read.
func (s *store) grantAndClaim(ctx context.Context, owner string, ttl time.Duration, maxNode, prefer, bound int64, horizon time.Duration) (int64, *meta, error) {
	if err := s.check(ttl); err != nil {
		return 0, nil, err
	}
	if err := checkHorizon(horizon); err != nil {
		return 0, nil, err
	}
	// Without a node to try first, the listing of held nodes is read
	// while the etcd lease is granted.
	var held *listing
	var lerr error
	var wg sync.WaitGroup
	if prefer < 0 || prefer > maxNode {
		wg.Go(func() { held, lerr = s.listing(ctx) })
	}
	g, err := s.c.Grant(ctx, seconds(ttl))
	wg.Wait()
	for grants := 1; ; grants++ {
		if err != nil {
			return 0, nil, fmt.Errorf("etcdlease: claim: grant: %w", err)
		}
		n, m := int64(0), (*meta)(nil)
		if err = lerr; err == nil {
			n, m, err = s.claim(ctx, owner, g.ID, maxNode, prefer, bound, horizon, held)
		}
		if err == nil {
			return n, m, nil
		}
		if errors.Is(err, rpctypes.ErrLeaseNotFound) && grants < 3 && ctx.Err() == nil {
			// The claim outlasted its etcd lease: grant another.
			held = nil
			g, err = s.c.Grant(ctx, seconds(ttl))
			continue
		}
		// The etcd lease holds no key; it would expire anyway.
		if ctx.Err() == nil {
			_, _ = s.c.Revoke(ctx, g.ID)
		}
		return 0, nil, err
	}
}

// listing returns a listing of the held nodes read after the call began.
// Concurrent claims share one: the reads are serialized, and a claim
// takes the result of a read that started after it began, if any, instead
// of reading again.
func (s *store) listing(ctx context.Context) (*listing, error) {
	s.mu.Lock()
	after := s.reads
	s.mu.Unlock()
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("etcdlease: claim: list nodes: %w", ctx.Err())
	}
	defer func() { <-s.sem }()
	s.mu.Lock()
	if s.lastRead > after {
		l := s.last
		s.mu.Unlock()
		return l, nil
	}
	s.reads++
	read := s.reads
	s.mu.Unlock()
	r, err := s.c.Get(ctx, s.owners, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return nil, fmt.Errorf("etcdlease: claim: list nodes: %w", err)
	}
	l := s.list(r.Header.Revision, r.Kvs)
	s.mu.Lock()
	s.last, s.lastRead = l, read
	s.mu.Unlock()
	return l, nil
}

// claim takes a node for owner under the etcd lease id.
func (s *store) claim(ctx context.Context, owner string, id clientv3.LeaseID, maxNode, prefer, bound int64, horizon time.Duration, held *listing) (int64, *meta, error) {
	if prefer >= 0 && prefer <= maxNode {
		ok := s.key(s.owners, prefer)
		s.reserve(prefer)
		m, cur, l, err := s.take(ctx, prefer, owner, id, bound, horizon)
		s.unreserve(prefer)
		if err != nil {
			return 0, nil, err
		}
		if m != nil {
			return prefer, m, nil
		}
		if cur != nil && string(cur.Value) == owner {
			// The owner's own node: move its key to the new etcd lease.
			r, err := s.c.Txn(ctx).If(
				clientv3.Compare(clientv3.ModRevision(ok), "=", cur.ModRevision),
			).Then(s.claimOps(prefer, owner, id, bound, horizon)...).Commit()
			if err != nil {
				return 0, nil, fmt.Errorf("etcdlease: claim node %d: %w", prefer, err)
			}
			if r.Succeeded {
				if cur.Lease != 0 && cur.Lease != int64(id) {
					_, _ = s.c.Revoke(ctx, clientv3.LeaseID(cur.Lease))
				}
				return prefer, s.read(r, bound), nil
			}
		}
		held = l
	}
	if held == nil {
		var err error
		if held, err = s.listing(ctx); err != nil {
			return 0, nil, err
		}
	}
	for {
		n, ok := s.pick(held, maxNode)
		if !ok {
			return 0, nil, fmt.Errorf("%w: all %d node ids are leased", node.ErrExhausted, maxNode+1)
		}
		m, _, l, err := s.take(ctx, n, owner, id, bound, horizon)
		s.unreserve(n)
		if err != nil {
			return 0, nil, err
		}
		if m != nil {
			return n, m, nil
		}
		held = l
	}
}

// take claims node n for owner if its owner key does not exist, returning
// what the claim read (m); otherwise it returns the owner key (nil if it
// was gone by then) and a fresh listing of the held nodes.
func (s *store) take(ctx context.Context, n int64, owner string, id clientv3.LeaseID, bound int64, horizon time.Duration) (m *meta, cur *mvccpb.KeyValue, held *listing, err error) {
	ok := s.key(s.owners, n)
	r, err := s.c.Txn(ctx).If(
		clientv3.Compare(clientv3.CreateRevision(ok), "=", 0),
	).Then(s.claimOps(n, owner, id, bound, horizon)...).Else(
		clientv3.OpGet(ok),
		clientv3.OpGet(s.owners, clientv3.WithPrefix(), clientv3.WithKeysOnly()),
	).Commit()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("etcdlease: claim node %d: %w", n, err)
	}
	if r.Succeeded {
		s.took(n, r.Header.Revision)
		return s.read(r, bound), nil, nil, nil
	}
	if c := kvs(r.Responses[0]); len(c) > 0 {
		cur = c[0]
	}
	return nil, cur, s.list(r.Header.Revision, kvs(r.Responses[1])), nil
}

// kvs returns the pairs of a range response in a transaction's response.
func kvs(r *etcdserverpb.ResponseOp) []*mvccpb.KeyValue {
	if rr := r.GetResponseRange(); rr != nil {
		return rr.Kvs
	}
	return nil
}

// The bounds of the numbers the keys hold: a mark (Unix ns) at most
// maxMark, before 2116-02-20, and a horizon at most maxHorizon, 2^53 ns
// (104 days), so that a floor (the clock + the horizon) never wraps. A
// claim or renewal with a longer horizon is refused.
const (
	maxMark    = 1 << 62
	maxHorizon = 1 << 53
)

// parseMark returns the number a key holds (0 if none), and false if its
// value is not one that mark writes (19 decimal digits) or is above limit:
// a hand-edited or damaged value, which raise never replaces, as etcd
// compares values byte by byte.
func parseMark(kvs []*mvccpb.KeyValue, limit int64) (int64, bool) {
	if len(kvs) == 0 {
		return 0, true
	}
	v := string(kvs[0].Value)
	if len(v) != 19 || strings.Trim(v, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n > limit {
		return 0, false
	}
	return n, true
}

// listing is the set of held nodes at a revision.
type listing struct {
	rev  int64
	held map[int64]struct{}
}

// list makes the listing of owner keys read at rev, and forgets the
// nodes this store took before rev that are free at rev.
func (s *store) list(rev int64, owners []*mvccpb.KeyValue) *listing {
	l := &listing{rev: rev, held: make(map[int64]struct{}, len(owners))}
	for _, kv := range owners {
		if n, err := strconv.ParseInt(strings.TrimPrefix(string(kv.Key), s.owners), 10, 64); err == nil {
			l.held[n] = struct{}{}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for n, r := range s.mine {
		if _, ok := l.held[n]; !ok && r <= rev {
			delete(s.mine, n) // freed since: expired or lost
		}
	}
	return l
}

// pick chooses a node in [0, maxNode] that l does not show held, that
// no claim of this store is trying and that this store did not take
// after l's revision, and reserves it: one of them at random, so that
// claims of many processes at once, each with its own store, spread over
// the free nodes instead of all trying the lowest (docs/leases.md, "How
// claims spread"). A collision's transaction returns a fresh listing.
func (s *store) pick(l *listing, maxNode int64) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, c := int64(-1), 0
	for i := int64(0); i <= maxNode; i++ {
		if _, ok := l.held[i]; ok || s.trying[i] > 0 || s.mine[i] > l.rev {
			continue
		}
		// Each of the c candidates so far is kept with probability 1/c.
		if c++; rand.IntN(c) == 0 {
			n = i
		}
	}
	if n < 0 {
		return 0, false
	}
	s.trying[n]++
	return n, true
}

func (s *store) reserve(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trying[n]++
}

func (s *store) unreserve(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.trying[n]--; s.trying[n] <= 0 {
		delete(s.trying, n)
	}
}

// took records that this store took node n at revision rev.
func (s *store) took(n, rev int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mine[n] = rev
}

// retry runs f, a request that is safe to repeat, until it succeeds,
// returns an error other than a [transient] one, or ctx ends. Each
// attempt fails at once on a member without a leader. While no attempt
// has answered, another starts after a sixth of ttl (at least 200 ms),
// then after twice that, and so on, beside those still running: a
// request that a member which has died holds, or that was proposed to a
// leader which has died, would wait for ctx, and a later one may reach a
// live member or a new leader. After a transient error with no attempt
// running, the next starts after an eighth of that interval.
func retry[T any](ctx context.Context, ttl time.Duration, f func(context.Context) (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the attempts still running
	res := make(chan result)
	running := 0
	launch := func() {
		running++
		go func() {
			v, err := f(clientv3.WithRequireLeader(ctx))
			select {
			case res <- result{v, err}:
			case <-ctx.Done():
			}
		}()
	}
	each := max(ttl/6, 200*time.Millisecond)
	launch()
	t := time.NewTimer(each)
	defer t.Stop()
	var last result
	for {
		select {
		case r := <-res:
			running--
			if r.err == nil || !transient(r.err) {
				return r.v, r.err
			}
			last = r
			if running == 0 {
				t.Reset(each / 8)
			}
		case <-t.C:
			launch()
			each *= 2
			t.Reset(each)
		case <-ctx.Done():
			if last.err == nil {
				last.err = ctx.Err()
			}
			return last.v, last.err
		}
	}
}

// transient reports whether err is etcd's answer to a leader lost,
// changing or not yet elected, or a member stopping.
func transient(err error) bool {
	for _, e := range []error{rpctypes.ErrNoLeader, rpctypes.ErrLeaderChanged, rpctypes.ErrStopped,
		rpctypes.ErrTimeout, rpctypes.ErrTimeoutDueToLeaderFail, rpctypes.ErrTimeoutDueToConnectionLost} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// keepAlive keeps the etcd lease id of owner's node n alive, moving the
// owner key to a new etcd lease if ttl is longer than id's.
func (s *store) keepAlive(ctx context.Context, n int64, owner string, ttl time.Duration, id clientv3.LeaseID) error {
	ok := s.key(s.owners, n)
	ka, err := retry(ctx, ttl, func(ctx context.Context) (*clientv3.LeaseKeepAliveResponse, error) {
		return s.c.KeepAliveOnce(ctx, id)
	})
	switch {
	case errors.Is(err, rpctypes.ErrLeaseNotFound):
		return fmt.Errorf("%w: %w: node %d: its etcd lease expired", node.ErrLeaseLost, node.ErrLapsed, n)
	case err != nil:
		return fmt.Errorf("etcdlease: renew node %d: %w", n, err)
	case ka.TTL >= seconds(ttl):
		return nil
	}
	// A longer TTL than the claim's: move the key to a new etcd lease.
	g, err := s.c.Grant(ctx, seconds(ttl))
	if err != nil {
		return fmt.Errorf("etcdlease: renew node %d: grant: %w", n, err)
	}
	r, err := s.c.Txn(ctx).If(
		clientv3.Compare(clientv3.Value(ok), "=", owner),
		clientv3.Compare(clientv3.LeaseValue(ok), "=", id),
	).Then(clientv3.OpPut(ok, owner, clientv3.WithLease(g.ID))).Commit()
	if err != nil {
		return fmt.Errorf("etcdlease: renew node %d: %w", n, err)
	}
	if !r.Succeeded {
		_, _ = s.c.Revoke(ctx, g.ID)
		return fmt.Errorf("%w: node %d is no longer held by %s", node.ErrLeaseLost, n, owner)
	}
	_, _ = s.c.Revoke(ctx, id)
	return nil
}

func (s *store) Release(ctx context.Context, rq node.Release) error {
	n, owner, hwm, exact := rq.Node, rq.Owner, rq.Mark, rq.Exact
	if s.c == nil {
		return fmt.Errorf("%w: nil etcd client", generator.ErrInvalidConfig)
	}
	ok, hk := s.key(s.owners, n), s.key(s.marks, n)
	set := raise(hk, hwm)
	if exact {
		set = clientv3.OpPut(hk, mark(hwm))
	}
	r, err := s.c.Txn(ctx).If(
		clientv3.Compare(clientv3.Value(ok), "=", owner),
	).Then(clientv3.OpGet(ok), clientv3.OpDelete(ok), set).Commit()
	if err != nil {
		return fmt.Errorf("etcdlease: release node %d: %w", n, err)
	}
	if r.Succeeded {
		s.mu.Lock()
		delete(s.mine, n)
		s.mu.Unlock()
		if cur := kvs(r.Responses[0]); len(cur) > 0 && cur[0].Lease != 0 {
			// The etcd lease now holds no key.
			_, _ = s.c.Revoke(ctx, clientv3.LeaseID(cur[0].Lease))
		}
	}
	return nil
}

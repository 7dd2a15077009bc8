package kubelease

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
)

// listing is one list of the store's objects.
type listing struct {
	rv    int64     // the list's resourceVersion
	at    time.Time // when its answer arrived
	ident *coordinationv1.Lease
	nodes map[int64]*coordinationv1.Lease
	// hz is the longest horizon (ns) of the identity and every node.
	hz int64
	// rewound: the list's resourceVersion is below one a listing of this
	// store saw before: the objects went back (an etcd restore).
	rewound bool
	err     error // a corrupt identity annotation
}

// listing returns a listing read after the call began. Concurrent claims
// share one: the reads are serialized, and a claim takes the result of a
// read that started after it began, if any, instead of reading again.
func (s *store) listing(ctx context.Context) (*listing, error) {
	s.mu.Lock()
	after := s.reads
	s.mu.Unlock()
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("kubelease: claim: list leases: %w", ctx.Err())
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
	r, err := s.c.List(ctx, metav1.ListOptions{LabelSelector: labelKey + "=" + s.prefix})
	if err != nil {
		return nil, s.fail("claim", "list", s.prefix+"-*", err)
	}
	l := &listing{at: time.Now(), nodes: make(map[int64]*coordinationv1.Lease, len(r.Items))}
	if l.rv, err = strconv.ParseInt(r.ResourceVersion, 10, 64); err != nil {
		return nil, fmt.Errorf("kubelease: claim: %w", errNotRevision("the list of leases", r.ResourceVersion))
	}
	listed := make(map[string]int64, len(r.Items))
	for i := range r.Items {
		o := &r.Items[i]
		rv, err := rvOf(o)
		if err != nil {
			return nil, fmt.Errorf("kubelease: claim: %w", err)
		}
		listed[o.Name] = rv
		if o.Name == s.identName() {
			l.ident = o
			hz, err := annInt(o, annHorizon)
			if err == nil {
				_, err = annInt(o, annFloor)
			}
			if err != nil {
				l.err = err
			}
			l.hz = max(l.hz, hz)
			continue
		}
		n, err := strconv.ParseInt(strings.TrimPrefix(o.Name, s.prefix+"-"), 10, 64)
		if err != nil || n < 0 || s.name(n) != o.Name {
			continue
		}
		l.nodes[n] = o
		if hz, err := annInt(o, annHorizon); err == nil {
			l.hz = max(l.hz, hz)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// The objects went back: the list's resourceVersion is lower (an etcd
	// restore without --bump-revision), or an object's is, or an object is
	// gone (a restore with --bump-revision, which raises the list's).
	rewound := l.rv < s.rv
	for name, rv := range s.listed {
		if now, ok := listed[name]; !ok || now < rv {
			rewound = true
			break
		}
	}
	if rewound {
		l.rewound, s.loss = true, true
	}
	s.rv, s.listed = l.rv, listed
	// Watch the held nodes; forget this store's claims the listing shows.
	for n, o := range l.nodes {
		if holderOf(o) == "" {
			delete(s.watch, n)
		} else if w, ok := s.watch[n]; !ok || w.rv != o.ResourceVersion {
			s.watch[n] = obs{rv: o.ResourceVersion, since: l.at}
		}
	}
	for n, rv := range s.mine {
		if rv <= l.rv {
			delete(s.mine, n)
		}
	}
	s.last, s.lastRead = l, read
	return l, nil
}

// free reports whether a claim by owner may take node n as l shows it:
// missing, released, owner's, or unchanged for its holder's TTL since this
// store first saw it.
func (s *store) free(l *listing, n int64, owner string, ttl time.Duration) bool {
	o := l.nodes[n]
	h := holderOf(o)
	if h == "" || h == owner {
		return true
	}
	w, ok := s.watch[n]
	return ok && w.rv == o.ResourceVersion && time.Since(w.since) >= ttlOf(o, ttl)
}

// pick chooses a free node of l in [0, maxNode] that no claim of this
// store is trying and that it did not take after l, and reserves it: the
// lowest, or after collisions with other processes' claims one of the
// lowest w at random (w = (claims under way + 1) * 2^collisions, at most
// 1,024), so that claimers that collided spread out.
func (s *store) pick(l *listing, c node.Claim, collisions int, tried map[int64]bool) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := c.Prefer; p >= 0 && p <= c.MaxNode && !tried[p] && s.trying[p] == 0 && s.free(l, p, c.Owner, c.TTL) {
		s.trying[p]++
		return p, true
	}
	w := 1
	if collisions > 0 {
		w = min((len(s.trying)+1)<<min(collisions, 10), 1024)
	}
	n, k := int64(-1), 0
	for i := int64(0); i <= c.MaxNode && k < w; i++ {
		if tried[i] || s.trying[i] > 0 || s.mine[i] > l.rv || !s.free(l, i, c.Owner, c.TTL) {
			continue
		}
		if k++; rand.IntN(k) == 0 {
			n = i
		}
	}
	if n < 0 {
		return 0, false
	}
	s.trying[n]++
	return n, true
}

func (s *store) unreserve(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.trying[n]--; s.trying[n] <= 0 {
		delete(s.trying, n)
	}
}

// errAgain: a write lost a race; list again.
var errAgain = fmt.Errorf("kubelease: list again")

// settle checks l's identity for a loss and records what c needs in the
// identity object: the store's identity, the horizon raised to c's, and
// after a loss the store-wide mark. It returns the identity's UID, the
// store-wide mark and whether the claim is a claim after a loss.
func (s *store) settle(ctx context.Context, l *listing, c node.Claim) (string, int64, bool, error) {
	if l.err != nil {
		return "", 0, false, fmt.Errorf("kubelease: claim: %w", l.err)
	}
	// One claim of the store at a time reads and writes the identity;
	// the others use what it wrote, if the listing is older.
	s.identMu.Lock()
	defer s.identMu.Unlock()
	s.mu.Lock()
	known, loss := s.ident, s.loss || c.Lost
	id := l.ident
	if w := s.identObj; w != nil && (id == nil || newer(w, id)) && !l.rewound {
		id = w
	}
	s.mu.Unlock()
	hz := max(l.hz, int64(c.Horizon))
	switch {
	case id == nil && len(l.nodes) > 0:
		loss = true // node objects without the identity: it was lost
	case id != nil && known != "" && string(id.UID) != known:
		loss = true // another identity: a new cluster, or the operator's step
	}
	var floor, oldHz int64
	if id != nil {
		oldHz, _ = annInt(id, annHorizon)
		floor, _ = annInt(id, annFloor)
	}
	if id != nil && !loss && int64(c.Horizon) <= oldHz {
		s.seeIdent(string(id.UID), false)
		return string(id.UID), floor, false, nil
	}
	if loss {
		floor = max(floor, time.Now().UnixNano()+hz)
	}
	var o *coordinationv1.Lease
	if id == nil {
		o = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: s.identName(), Namespace: s.ns,
			Labels: map[string]string{labelKey: s.prefix}}}
	} else {
		o = id.DeepCopy()
	}
	if o.Annotations == nil {
		o.Annotations = map[string]string{}
	}
	o.Annotations[annHorizon] = strconv.FormatInt(max(hz, oldHz), 10)
	o.Annotations[annFloor] = strconv.FormatInt(floor, 10)
	var err error
	if id == nil {
		o, err = s.c.Create(ctx, o, metav1.CreateOptions{})
	} else {
		o, err = s.c.Update(ctx, o, metav1.UpdateOptions{})
	}
	switch {
	case apierrors.IsAlreadyExists(err), apierrors.IsConflict(err):
		return "", 0, false, errAgain
	case err != nil:
		verb := "update"
		if id == nil {
			verb = "create"
		}
		return "", 0, false, s.fail("claim", verb, s.identName(), err)
	}
	s.seeIdent(string(o.UID), loss)
	s.mu.Lock()
	s.identObj = o
	s.mu.Unlock()
	if loss {
		log := c.Log
		if log == nil {
			log = slog.Default()
		}
		log.Warn("kubelease: the store lost writes (its objects went back, or its identity changed or is missing): claims wait out the horizon",
			"namespace", s.ns, "prefix", s.prefix, "horizon", time.Duration(hz), "floor", time.Unix(0, floor))
	}
	return string(o.UID), floor, loss, nil
}

// newer reports whether a's resourceVersion is above b's.
func newer(a, b *coordinationv1.Lease) bool {
	ra, err1 := rvOf(a)
	rb, err2 := rvOf(b)
	return err1 == nil && err2 == nil && ra > rb
}

// seeIdent records the identity's UID, and that a loss was recorded.
func (s *store) seeIdent(uid string, recorded bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ident = uid
	if recorded {
		s.loss = false
	}
}

func (s *store) Claim(ctx context.Context, c node.Claim) (node.Claimed, error) {
	if err := s.check(c.TTL); err != nil {
		return node.Claimed{}, err
	}
	if c.MaxNode < 0 {
		return node.Claimed{}, fmt.Errorf("%w: kubelease: max node %d", generator.ErrInvalidConfig, c.MaxNode)
	}
	if err := checkHorizon(c.Horizon); err != nil {
		return node.Claimed{}, err
	}
	collisions := 0 // conflicts on node objects, over the listings
	for {
		if err := ctx.Err(); err != nil {
			return node.Claimed{}, fmt.Errorf("kubelease: claim: %w", err)
		}
		l, err := s.listing(ctx)
		if err != nil {
			return node.Claimed{}, err
		}
		uid, storeFloor, loss, err := s.settle(ctx, l, c)
		if err == errAgain {
			continue
		}
		if err != nil {
			return node.Claimed{}, err
		}
		tried := map[int64]bool{}
		for {
			n, ok := s.pick(l, c, collisions, tried)
			if !ok {
				if len(tried) > 0 {
					break // list again: the conflicts may have freed none
				}
				return node.Claimed{}, fmt.Errorf("%w: kubelease: all %d node ids are leased (a held node is taken once unchanged for its holder's TTL)", node.ErrExhausted, c.MaxNode+1)
			}
			r, err := s.take(ctx, l, n, c, uid, storeFloor, loss)
			s.unreserve(n)
			if err == errAgain {
				tried[n] = true
				collisions++
				continue
			}
			return r, err
		}
	}
}

// take claims node n as l shows it for c: a create if its object is
// missing, else an update conditioned on its resourceVersion.
func (s *store) take(ctx context.Context, l *listing, n int64, c node.Claim, uid string, storeFloor int64, loss bool) (node.Claimed, error) {
	cur := l.nodes[n]
	var pre int64
	var markErr error
	if cur != nil {
		pre, _ = annInt(cur, annMark)
		markErr = ownErr(cur)
	}
	hz := max(l.hz, int64(c.Horizon))
	start := time.Now()
	floor := max(storeFloor, pre)
	if c.Lapsed || markErr != nil {
		// A lapsed claim, or a node whose own numbers are unreadable:
		// start after anything its holders could have issued.
		floor = max(floor, start.UnixNano()+hz)
	}
	if markErr != nil {
		log := c.Log
		if log == nil {
			log = slog.Default()
		}
		log.Warn("kubelease: claim: the node's object holds a corrupt number, which the claim rewrites; it waits out the horizon", "node", n, "error", markErr)
	}
	o, _ := s.write(n, cur, c.Owner, c.TTL, max(pre, c.Bound), hz, true)
	if err := s.acquire(ctx); err != nil {
		return node.Claimed{}, fmt.Errorf("kubelease: claim node %d: %w", n, err)
	}
	var err error
	var w *coordinationv1.Lease
	verb := "update"
	if cur == nil {
		verb = "create"
		w, err = s.c.Create(ctx, o, metav1.CreateOptions{})
	} else {
		w, err = s.c.Update(ctx, o, metav1.UpdateOptions{})
	}
	<-s.writing
	switch {
	case apierrors.IsAlreadyExists(err), apierrors.IsConflict(err):
		return node.Claimed{}, errAgain
	case err != nil:
		return node.Claimed{}, s.fail("claim", verb, o.Name, err)
	}
	rv, err := rvOf(w)
	if err != nil {
		return node.Claimed{}, err
	}
	s.mu.Lock()
	s.mine[n] = rv
	s.held[n] = &held{obj: w, start: start, ttl: c.TTL, pending: map[string]time.Time{}}
	delete(s.watch, n)
	s.mu.Unlock()
	return node.Claimed{Node: n, Floor: floor, Seen: node.Seen{Ident: uid, Version: rv}, Forgot: loss}, nil
}

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
// store is trying, that it did not take after l and that this claim has
// not tried, and reserves it: c.Prefer if it qualifies, else one of them
// at random, so that claims of many processes at once, each with its own
// store, spread over the free nodes instead of all creating the lowest
// (docs/leases.md, "How claims spread").
func (s *store) pick(l *listing, c node.Claim, tried map[int64]bool) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := c.Prefer; p >= 0 && p <= c.MaxNode && !tried[p] && s.trying[p] == 0 && s.free(l, p, c.Owner, c.TTL) {
		s.trying[p]++
		return p, true
	}
	n, k := int64(-1), 0
	for i := int64(0); i <= c.MaxNode; i++ {
		if tried[i] || s.trying[i] > 0 || s.mine[i] > l.rv || !s.free(l, i, c.Owner, c.TTL) {
			continue
		}
		// Each of the k candidates so far is kept with probability 1/k.
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

// errSettle: the identity's create lost a race, and the store read the
// identity another wrote: settle again on the same listing.
var errSettle = fmt.Errorf("kubelease: settle again")

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
	case apierrors.IsAlreadyExists(err) && id == nil:
		// Another process created the identity since the listing, as
		// every process of a fleet starting at once tries to: read that
		// one object rather than list every object again.
		got, gerr := s.c.Get(ctx, s.identName(), metav1.GetOptions{})
		if gerr != nil {
			return "", 0, false, errAgain
		}
		s.mu.Lock()
		if s.identObj == nil || newer(got, s.identObj) {
			s.identObj = got
		}
		s.mu.Unlock()
		return "", 0, false, errSettle
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
	busy := 0 // answers "too many requests" in a row
	for {
		if err := ctx.Err(); err != nil {
			return node.Claimed{}, fmt.Errorf("kubelease: claim: %w", err)
		}
		r, err := s.claimOnce(ctx, c)
		if err == nil || !retryLater(err) {
			return r, err
		}
		// The API server shed the request before running it (429, or a
		// timeout it reports): wait what it asks, spread at random so
		// that the pods it turned away do not come back together.
		busy++
		d, ok := apierrors.SuggestsClientDelay(err)
		wait := time.Duration(d) * time.Second
		if !ok || wait <= 0 {
			wait = min(time.Duration(busy)*250*time.Millisecond, 2*time.Second)
		}
		wait = wait/2 + rand.N(wait)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return node.Claimed{}, err
		}
	}
}

// retryLater reports whether err is an answer of an API server that did
// not run the request and asks to be asked later: 429 Too Many Requests,
// or its own timeout or unavailability.
func retryLater(err error) bool {
	return apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsServiceUnavailable(err)
}

// claimOnce lists the store's objects and takes a node, listing again
// after each conflict: the listing then shows what the rival took.
func (s *store) claimOnce(ctx context.Context, c node.Claim) (node.Claimed, error) {
	if r, ok, err := s.claimFirst(ctx, c); ok || err != nil {
		return r, err
	}
	var tried map[int64]bool // nodes this claim lost a race for
	for {
		if err := ctx.Err(); err != nil {
			return node.Claimed{}, fmt.Errorf("kubelease: claim: %w", err)
		}
		l, err := s.listing(ctx)
		if err != nil {
			return node.Claimed{}, err
		}
		uid, storeFloor, loss, err := s.settle(ctx, l, c)
		for i := 0; err == errSettle && i < 3; i++ {
			uid, storeFloor, loss, err = s.settle(ctx, l, c)
		}
		if err == errAgain || err == errSettle {
			continue
		}
		if err != nil {
			return node.Claimed{}, err
		}
		n, ok := s.pick(l, c, tried)
		if !ok && len(tried) > 0 {
			// Every node this listing shows free was lost to a rival:
			// list again, without ruling out any.
			tried = nil
			continue
		}
		if !ok {
			return node.Claimed{}, fmt.Errorf("%w: kubelease: all %d node ids are leased (a held node is taken once unchanged for its holder's TTL)", node.ErrExhausted, c.MaxNode+1)
		}
		r, err := s.take(ctx, l, n, c, uid, storeFloor, loss)
		s.unreserve(n)
		if err == errAgain {
			if tried == nil {
				tried = map[int64]bool{}
			}
			tried[n] = true
			continue
		}
		return r, err
	}
}

// claimFirst is the first claim of a store that has not listed yet, a
// pod starting (one claim per store tries it; the store's other claims
// share their listings). Rather than list every object (a fleet starting
// at once sends the API server as many lists of up to 1,024 objects as
// it has pods), it lists the identity object alone and creates the
// object of a node picked at random, as the listing's path would take a
// node whose object is missing. ok is false when the claim must take the
// listing's path: the store listed or tried this before, the claim
// prefers a node or follows a loss or a lapse, the identity is missing,
// unreadable or needs a write (a longer horizon), or the node's object
// exists.
func (s *store) claimFirst(ctx context.Context, c node.Claim) (node.Claimed, bool, error) {
	if c.Prefer >= 0 || c.Lost || c.Lapsed || !s.fastTried.CompareAndSwap(false, true) {
		return node.Claimed{}, false, nil
	}
	s.mu.Lock()
	first := s.reads == 0 && s.ident == "" && !s.loss && s.identObj == nil
	s.mu.Unlock()
	if !first {
		return node.Claimed{}, false, nil
	}
	// A list of the one object, not a get: the claim needs the verb
	// "list" (to heal, later), and says so now if the Role lacks it.
	il, err := s.c.List(ctx, metav1.ListOptions{LabelSelector: labelKey + "=" + s.prefix, FieldSelector: "metadata.name=" + s.identName()})
	if err != nil {
		return node.Claimed{}, false, s.fail("claim", "list", s.prefix+"-*", err)
	}
	if len(il.Items) != 1 {
		return node.Claimed{}, false, nil
	}
	id := &il.Items[0]
	hz, err := annInt(id, annHorizon)
	if err != nil || int64(c.Horizon) > hz {
		return node.Claimed{}, false, nil
	}
	floor, err := annInt(id, annFloor)
	if err != nil {
		return node.Claimed{}, false, nil
	}
	s.mu.Lock()
	n := int64(-1)
	for range 8 {
		if i := rand.Int64N(c.MaxNode + 1); s.trying[i] == 0 && s.mine[i] == 0 {
			n = i
			break
		}
	}
	if n >= 0 {
		s.trying[n]++
	}
	s.mu.Unlock()
	if n < 0 {
		return node.Claimed{}, false, nil
	}
	l := &listing{ident: id, nodes: map[int64]*coordinationv1.Lease{}, hz: hz}
	r, err := s.take(ctx, l, n, c, string(id.UID), floor, false)
	s.unreserve(n)
	switch {
	case err == errAgain:
		return node.Claimed{}, false, nil // the node's object exists: list
	case err != nil:
		return node.Claimed{}, true, err
	}
	s.seeIdent(string(id.UID), false)
	return r, true, nil
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

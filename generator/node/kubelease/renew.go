package kubelease

import (
	"context"
	"fmt"
	"strconv"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/idkit-go/idkit/generator/node"
)

// Renewing without comparing clocks: a renewal is an update of the object
// the lease last saw, conditioned on its resourceVersion, so it succeeds
// only if nobody wrote the object since. A claimant takes a held node only
// after seeing one resourceVersion for the holder's TTL on its own clock,
// that is at least the TTL after the holder's last successful write
// started; the holder stops trusting its lease TTL - Margin after that
// start. Only a restore can undo a claimant's write and give the holder
// its object back unchanged; so a renewal answered more than the previous
// TTL after the holder's last successful write started reports a lapse,
// and the lease heals by a claim that waits out the horizon.

// decide reads the answer to a renewal's conflict (cur, or err from the
// read) and returns the start of the write that made cur if cur is the
// lease's (the write the lease saw, or one of this store's writes whose
// answer was lost), or the renewal's error.
func (s *store) decide(r node.Renewal, h *held, cur *coordinationv1.Lease, err error) (time.Time, error) {
	name := s.name(r.Node)
	switch {
	case apierrors.IsNotFound(err):
		return time.Time{}, fmt.Errorf("%w: kubelease: renew node %d: lease %s is missing", node.ErrForgot, r.Node, name)
	case err != nil:
		return time.Time{}, s.fail("renew", "get", name, err)
	}
	rv, err := rvOf(cur)
	if err != nil {
		return time.Time{}, err
	}
	if rv < r.Seen.Version {
		return time.Time{}, fmt.Errorf("%w: kubelease: renew node %d: lease %s has resourceVersion %d, below the %d the lease saw", node.ErrForgot, r.Node, name, rv, r.Seen.Version)
	}
	if hold := holderOf(cur); hold != r.Owner {
		return time.Time{}, fmt.Errorf("%w: kubelease: renew node %d: lease %s is held by %q", node.ErrLeaseLost, r.Node, name, hold)
	}
	if h != nil {
		if rv == r.Seen.Version && h.obj.ResourceVersion == cur.ResourceVersion {
			return h.start, nil
		}
		if t, ok := h.pending[cur.Annotations[annWrite]]; ok {
			return t, nil // this store's write whose answer was lost
		}
	}
	if err := ownErr(cur); err != nil {
		return time.Time{}, fmt.Errorf("%w: %w: kubelease: renew node %d: %w", node.ErrLeaseLost, node.ErrLapsed, r.Node, err)
	}
	if rv == r.Seen.Version {
		// This store does not know when the lease last wrote (another
		// store made the claim): it cannot tell a lapse.
		return time.Time{}, fmt.Errorf("%w: %w: kubelease: renew node %d: this store did not claim it and cannot tell when it was last renewed", node.ErrLeaseLost, node.ErrLapsed, r.Node)
	}
	return time.Time{}, fmt.Errorf("%w: %w: kubelease: renew node %d: lease %s names the owner but was written since the lease saw it (resourceVersion %d, seen %d)", node.ErrLeaseLost, node.ErrLapsed, r.Node, name, rv, r.Seen.Version)
}

func (s *store) Renew(ctx context.Context, r node.Renewal) (node.Seen, error) {
	if err := s.check(r.TTL); err != nil {
		return node.Seen{}, err
	}
	if err := checkHorizon(r.Horizon); err != nil {
		return node.Seen{}, err
	}
	s.mu.Lock()
	if s.ident != "" && r.Seen.Ident != s.ident {
		// Another identity than this store's claims last saw: the
		// operator's step after a restore, or another cluster.
		known := s.ident
		s.mu.Unlock()
		return node.Seen{}, fmt.Errorf("%w: kubelease: renew node %d: the store's identity is %s, the lease saw %q", node.ErrForgot, r.Node, known, r.Seen.Ident)
	}
	h := s.held[r.Node]
	var cur *coordinationv1.Lease
	prev := time.Time{}
	if h != nil && holderOf(h.obj) == r.Owner && h.obj.ResourceVersion == strconv.FormatInt(r.Seen.Version, 10) {
		cur, prev = h.obj, h.start
	}
	s.mu.Unlock()
	for attempt := 0; ; attempt++ {
		if cur == nil {
			o, err := s.c.Get(ctx, s.name(r.Node), metav1.GetOptions{})
			if prev, err = s.decide(r, h, o, err); err != nil {
				if h == nil || holderOf(h.obj) == r.Owner {
					// Only the holder's own refusal drops what the store
					// knows of its hold: another owner's renewal of the
					// node (a lease that lost it) leaves the holder's.
					s.forget(r.Node)
				}
				return node.Seen{}, err
			}
			cur = o
		}
		prevTTL := r.TTL
		if h != nil {
			prevTTL = h.ttl
		}
		if err := ownErr(cur); err != nil {
			return node.Seen{}, fmt.Errorf("%w: %w: kubelease: renew node %d: %w", node.ErrLeaseLost, node.ErrLapsed, r.Node, err)
		}
		mark, _ := annInt(cur, annMark)
		hz, _ := annInt(cur, annHorizon)
		start := time.Now()
		o, tok := s.write(r.Node, cur, r.Owner, r.TTL, max(mark, r.Bound), max(hz, int64(r.Horizon)), false)
		if err := s.acquire(ctx); err != nil {
			return node.Seen{}, fmt.Errorf("kubelease: renew node %d: %w", r.Node, err)
		}
		w, err := s.c.Update(ctx, o, metav1.UpdateOptions{})
		<-s.writing
		switch {
		case apierrors.IsConflict(err) && attempt < 3:
			cur = nil
			continue
		case apierrors.IsNotFound(err):
			err = fmt.Errorf("%w: kubelease: renew node %d: lease %s is missing", node.ErrForgot, r.Node, o.Name)
			s.forget(r.Node)
			return node.Seen{}, err
		case err != nil:
			s.mu.Lock()
			if h := s.held[r.Node]; h != nil && len(h.pending) < 64 {
				h.pending[tok] = start
			}
			s.mu.Unlock()
			return node.Seen{}, s.fail("renew", "update", o.Name, err)
		}
		rv, err := rvOf(w)
		if err != nil {
			return node.Seen{}, err
		}
		s.mu.Lock()
		s.held[r.Node] = &held{obj: w, start: start, ttl: r.TTL, pending: map[string]time.Time{}}
		s.mu.Unlock()
		if late := time.Since(prev); late > prevTTL {
			return node.Seen{}, fmt.Errorf("%w: %w: kubelease: renew node %d: answered %v after the last renewal started (TTL %v): a claimant may have taken it meanwhile in writes a restore undid",
				node.ErrLeaseLost, node.ErrLapsed, r.Node, late.Round(time.Millisecond), prevTTL)
		}
		return node.Seen{Ident: r.Seen.Ident, Version: rv}, nil
	}
}

// forget drops what the store knows of node n, lost or released.
func (s *store) forget(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.held, n)
	delete(s.mine, n)
}

func (s *store) Release(ctx context.Context, rq node.Release) error {
	n, owner, hwm, exact := rq.Node, rq.Owner, rq.Mark, rq.Exact
	if s.err != nil {
		return s.err
	}
	s.mu.Lock()
	var cur *coordinationv1.Lease
	if h := s.held[n]; h != nil {
		cur = h.obj
	}
	s.mu.Unlock()
	for attempt := 0; ; attempt++ {
		if cur == nil {
			o, err := s.c.Get(ctx, s.name(n), metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				return nil
			case err != nil:
				return s.fail("release", "get", s.name(n), err)
			}
			cur = o
		}
		if holderOf(cur) != owner {
			return nil
		}
		mark, err := annInt(cur, annMark)
		if err != nil || exact {
			mark = hwm
		}
		o := cur.DeepCopy()
		if o.Annotations == nil {
			o.Annotations = map[string]string{}
		}
		o.Annotations[annMark] = strconv.FormatInt(max(mark, hwm, 0), 10)
		if exact {
			o.Annotations[annMark] = strconv.FormatInt(max(hwm, 0), 10)
		}
		o.Annotations[annWrite] = s.token()
		o.Spec.HolderIdentity = nil
		if err := s.acquire(ctx); err != nil {
			return fmt.Errorf("kubelease: release node %d: %w", n, err)
		}
		_, err = s.c.Update(ctx, o, metav1.UpdateOptions{})
		<-s.writing
		switch {
		case apierrors.IsConflict(err) && attempt < 3:
			cur = nil
			continue
		case err != nil:
			return s.fail("release", "update", o.Name, err)
		}
		s.forget(n)
		return nil
	}
}

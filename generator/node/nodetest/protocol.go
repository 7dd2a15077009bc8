package nodetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator/node"
)

// The protocol cases call one store's methods directly, as the method docs
// of [node.Store] and "Writing a store" in docs/leases.md give them, and
// check each answer. They need only Harness.Store. Their timing follows
// from the TTLs they set: a lease meant to stay live has protoTTL, far
// longer than any stall of a busy machine; one meant to expire has
// shortTTL, and the case waits past it by the clock, never on a quiet
// machine.

const (
	// protoTTL is the TTL of a claim the case keeps live.
	protoTTL = time.Minute
	// shortTTL is the TTL of a claim the case lets expire: whole seconds,
	// and etcd's minimum lease TTL with its default timing.
	shortTTL = 2 * time.Second
	// protoHorizon is the horizon of a claim whose horizon does not matter.
	protoHorizon = 2 * time.Second
	// large is the horizon whose wait a claim after a loss must show.
	large = 40 * time.Second
	// slack allows for the store's clock reading behind the suite's.
	slack = time.Second
	// gap separates the marks of a case, so that a store that rounds a
	// mark up (to micro- or milliseconds) still tells them apart.
	gap = time.Second
)

// expiryLimit bounds the wait for a store to let a short claim expire (a
// store may grant more than the TTL asked: etcd's whole seconds, and a
// revocation pass). A variable for the suite's own tests.
var expiryLimit = shortTTL + time.Minute

var protocolCases = []testCase{
	{"Protocol/claim-prefer", nil, claimPrefer},
	{"Protocol/claim-prefer-expired", nil, claimPreferExpired},
	{"Protocol/floor", nil, floorCase},
	{"Protocol/exhausted", nil, exhausted},
	{"Protocol/release", nil, releaseCase},
	{"Protocol/marks-only-rise", nil, marksRise},
	{"Protocol/renew-other-owner", nil, renewOther},
	{"Protocol/renew-lapsed", nil, renewLapsed},
	{"Protocol/renew-seen", nil, renewSeen},
	{"Protocol/horizon", nil, horizonClaims},
	{"Protocol/horizon-renewal", nil, horizonRenewal},
	{"Protocol/lapsed-claim", nil, lapsedClaim},
	{"Protocol/claim-kept", nil, claimKept},
	{"Protocol/claim-kept-other-node", nil, claimKeptOther},
}

// The protocol cases run after the fault cases, through the same Run.
func init() { cases = append(cases, protocolCases...) }

// proto is one protocol case: one store, the owners' last Seen, and the
// marks of the case (base + k*gap).
type proto struct {
	t    *testing.T
	kept bool // the harness's SetsKept
	s    node.Store
	base int64
	seen map[string]node.Seen
}

func (e *env) proto() *proto {
	return &proto{t: e.t, kept: e.h.SetsKept, s: e.h.Store(e.t, e.link().dial), base: time.Now().UnixNano(), seen: map[string]node.Seen{}}
}

// mark returns the case's k-th mark.
func (p *proto) mark(k int) int64 { return p.base + int64(k)*int64(gap) }

func ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}

// req is a claim of owner with the case's usual TTL and horizon.
func req(owner string, maxNode, prefer, bound int64) node.Claim {
	return node.Claim{Owner: owner, TTL: protoTTL, MaxNode: maxNode, Prefer: prefer, Bound: bound, Horizon: protoHorizon}
}

// try claims c, checking that a node claimed is in [0, c.MaxNode].
func (p *proto) try(c node.Claim) (node.Claimed, error) {
	p.t.Helper()
	ctx, cancel := ctx()
	defer cancel()
	r, err := p.s.Claim(ctx, c)
	if err == nil {
		if r.Node < 0 || r.Node > c.MaxNode {
			p.t.Fatalf("claim %+v: node %d is outside [0, %d]", c, r.Node, c.MaxNode)
		}
		p.seen[c.Owner] = r.Seen
	}
	return r, err
}

// claim claims c, failing the case on an error.
func (p *proto) claim(c node.Claim) node.Claimed {
	p.t.Helper()
	r, err := p.try(c)
	if err != nil {
		p.t.Fatalf("claim %+v: %v", c, err)
	}
	return r
}

// renewal is owner's renewal of n with what owner saw last.
func (p *proto) renewal(owner string, n, bound int64) node.Renewal {
	return node.Renewal{Node: n, Owner: owner, TTL: protoTTL, Bound: bound, Horizon: protoHorizon, Seen: p.seen[owner]}
}

func (p *proto) tryRenew(r node.Renewal) error {
	p.t.Helper()
	ctx, cancel := ctx()
	defer cancel()
	s, err := p.s.Renew(ctx, r)
	if err == nil {
		p.seen[r.Owner] = s
	}
	return err
}

// renew renews r, failing the case on an error.
func (p *proto) renew(r node.Renewal) {
	p.t.Helper()
	if err := p.tryRenew(r); err != nil {
		p.t.Fatalf("renew %+v: %v", r, err)
	}
}

// release releases r, failing the case on an error.
func (p *proto) release(r node.Release) {
	p.t.Helper()
	ctx, cancel := ctx()
	defer cancel()
	if err := p.s.Release(ctx, r); err != nil {
		p.t.Fatalf("release %+v: %v", r, err)
	}
}

// floorIs checks that r's floor is the mark want: at least want, below
// the case's next mark.
func (p *proto) floorIs(r node.Claimed, want int64, what string) {
	p.t.Helper()
	if r.Floor < want || r.Floor >= want+int64(gap)/2 {
		p.t.Errorf("%s: floor %d, want the mark %d (base%+v)", what, r.Floor, want, time.Duration(r.Floor-p.base))
	}
}

// noFloor checks that r, a claim of a node no claim of the case touched,
// has no floor from the case's marks.
func (p *proto) noFloor(r node.Claimed, what string) {
	p.t.Helper()
	if r.Floor >= p.base {
		p.t.Errorf("%s: floor %d (base%+v), want none: the node has no mark", what, r.Floor, time.Duration(r.Floor-p.base))
	}
}

// wantErr checks that err wraps every error of is and none of isNot.
func wantErr(t *testing.T, what string, err error, is []error, isNot []error) {
	t.Helper()
	for _, w := range is {
		if !errors.Is(err, w) {
			t.Errorf("%s: error %v, want one wrapping %v", what, err, w)
		}
	}
	for _, w := range isNot {
		if errors.Is(err, w) {
			t.Errorf("%s: error %v wraps %v", what, err, w)
		}
	}
}

// claimPrefer: the preferred node is taken when free, already the
// claimer's own, or released; any free node when it is held by another; a
// preference out of [0, MaxNode] is ignored; a claim without one takes a
// free node.
func claimPrefer(e *env) {
	p := e.proto()
	t := p.t
	const maxNode = 7
	held := map[int64]string{} // node → live owner
	free := func(r node.Claimed, owner, what string) {
		t.Helper()
		if o, ok := held[r.Node]; ok && o != owner {
			t.Fatalf("%s: %s got node %d, which %s holds", what, owner, r.Node, o)
		}
		held[r.Node] = owner
	}
	a := p.claim(req("a", maxNode, -1, p.mark(1)))
	free(a, "a", "no preference")
	pref := (a.Node + 5) % (maxNode + 1)
	b := p.claim(req("b", maxNode, pref, p.mark(1)))
	if b.Node != pref {
		t.Fatalf("b preferred free node %d, got %d", pref, b.Node)
	}
	free(b, "b", "a free preferred node")
	c := p.claim(req("c", maxNode, pref, p.mark(1)))
	free(c, "c", "a preferred node held by another")
	b2 := p.claim(req("b", maxNode, pref, p.mark(2)))
	if b2.Node != pref {
		t.Fatalf("b preferred its own node %d, got %d", pref, b2.Node)
	}
	for i, prefer := range []int64{maxNode + 1, maxNode + 3, -5} {
		owner := fmt.Sprint("out", i)
		r := p.claim(req(owner, maxNode, prefer, p.mark(1)))
		free(r, owner, fmt.Sprintf("a preference (%d) out of [0, %d]", prefer, maxNode))
	}
	p.release(node.Release{Node: pref, Owner: "b", Mark: p.mark(3)})
	delete(held, pref)
	d := p.claim(req("d", maxNode, pref, p.mark(4)))
	if d.Node != pref {
		t.Fatalf("d preferred node %d, released, got %d", pref, d.Node)
	}
}

// claimPreferExpired: every node is held, one by a short claim; claims by
// another owner preferring it fail with ErrExhausted (writing nothing)
// until it expired, then take it with its mark as floor; the old owner's
// renewal then finds it lost to another owner. A store that expires by
// watching sees the record unchanged through the attempts.
func claimPreferExpired(e *env) {
	p := e.proto()
	t := p.t
	const maxNode = 2
	holders := map[string]int64{}
	for i := range maxNode {
		o := fmt.Sprint("h", i)
		holders[o] = p.claim(req(o, maxNode, -1, p.mark(1))).Node
	}
	sent := time.Now()
	c := req("short", maxNode, -1, p.mark(2))
	c.TTL, c.Horizon = shortTTL, shortTTL
	n := p.claim(c).Node
	for {
		r, err := p.try(req("next", maxNode, n, p.mark(1)))
		at := time.Now()
		if err == nil {
			if at.Before(sent.Add(shortTTL)) {
				t.Fatalf("node %d, claimed with TTL %v, was taken %v after the claim was sent", n, shortTTL, at.Sub(sent))
			}
			if r.Node != n {
				t.Fatalf("next preferred expired node %d, got %d", n, r.Node)
			}
			p.floorIs(r, p.mark(2), "the expired node's claim")
			break
		}
		if !errors.Is(err, node.ErrExhausted) {
			t.Fatalf("claim with every node held: %v, want an error wrapping node.ErrExhausted", err)
		}
		if at.Sub(sent) > expiryLimit {
			t.Fatalf("node %d, claimed with TTL %v, not taken %v after", n, shortTTL, at.Sub(sent))
		}
		time.Sleep(100 * time.Millisecond)
	}
	err := p.tryRenew(p.renewal("short", n, p.mark(3)))
	wantErr(t, "the expired owner's renewal of a node another took", err, []error{node.ErrLeaseLost}, []error{node.ErrLapsed, node.ErrForgot})
	for o, hn := range holders {
		if err := p.tryRenew(p.renewal(o, hn, p.mark(1))); err != nil {
			t.Errorf("%s's renewal of node %d after the refused claims: %v", o, hn, err)
		}
	}
}

// floorCase: a claim's floor is the node's mark: the bound of the claims
// and renewals before it, and the mark of a release; a node no claim
// touched has none.
func floorCase(e *env) {
	p := e.proto()
	t := p.t
	const maxNode = 3
	a := p.claim(req("a", maxNode, -1, p.mark(1)))
	p.noFloor(a, "the first claim of a node")
	n := a.Node
	p.floorIs(p.claim(req("a", maxNode, n, p.mark(2))), p.mark(1), "the owner's claim after a claim")
	p.renew(p.renewal("a", n, p.mark(3)))
	p.floorIs(p.claim(req("a", maxNode, n, p.mark(3))), p.mark(3), "the owner's claim after a renewal")
	p.release(node.Release{Node: n, Owner: "a", Mark: p.mark(4)})
	b := p.claim(req("b", maxNode, n, p.mark(1)))
	if b.Node != n {
		t.Fatalf("b preferred released node %d, got %d", n, b.Node)
	}
	p.floorIs(b, p.mark(4), "a claim after a release")
	c := p.claim(req("c", maxNode, -1, p.mark(1)))
	p.noFloor(c, "a claim of another node")
}

// exhausted: with every node of [0, MaxNode] held, a claim fails with
// ErrExhausted and writes nothing: the holders renew, and after one
// releases, the next claim gets exactly that node, with its mark.
func exhausted(e *env) {
	p := e.proto()
	t := p.t
	const maxNode = 2
	owners := map[int64]string{}
	for i := range maxNode + 1 {
		o := fmt.Sprint("h", i)
		r := p.claim(req(o, maxNode, -1, p.mark(1)))
		if h, ok := owners[r.Node]; ok {
			t.Fatalf("%s got node %d, which %s holds", o, r.Node, h)
		}
		owners[r.Node] = o
	}
	for _, prefer := range []int64{-1, 1, maxNode + 1} {
		c := req("x", maxNode, prefer, p.mark(9))
		c.Horizon = large
		r, err := p.try(c)
		if !errors.Is(err, node.ErrExhausted) {
			t.Fatalf("claim (prefer %d) with all %d nodes held: %+v, %v; want an error wrapping node.ErrExhausted", prefer, maxNode+1, r, err)
		}
	}
	for n, o := range owners {
		if err := p.tryRenew(p.renewal(o, n, p.mark(1))); err != nil {
			t.Errorf("%s's renewal of node %d after the refused claims: %v", o, n, err)
		}
	}
	p.release(node.Release{Node: 1, Owner: owners[1], Mark: p.mark(2)})
	r := p.claim(req("y", maxNode, -1, p.mark(1)))
	if r.Node != 1 {
		t.Fatalf("after node 1's release the claim got node %d", r.Node)
	}
	p.floorIs(r, p.mark(2), "the released node's claim (a refused claim's bound is no mark)")
}

// releaseCase: a release by another owner changes nothing and returns
// nil; the owner's release frees the node for another owner, raising the
// mark, or setting it lower when exact.
func releaseCase(e *env) {
	p := e.proto()
	t := p.t
	const maxNode = 3
	n := p.claim(req("a", maxNode, -1, p.mark(1))).Node
	p.renew(p.renewal("a", n, p.mark(3)))
	p.release(node.Release{Node: n, Owner: "x", Mark: p.mark(0), Exact: true})
	p.release(node.Release{Node: n, Owner: "x", Mark: p.mark(9)})
	if err := p.tryRenew(p.renewal("a", n, p.mark(3))); err != nil {
		t.Fatalf("the owner's renewal after another owner's releases: %v", err)
	}
	if r := p.claim(req("y", maxNode, n, p.mark(1))); r.Node == n {
		t.Fatalf("node %d taken after another owner's releases: they freed it", n)
	}
	p.release(node.Release{Node: n, Owner: "a", Mark: p.mark(2)})
	b := p.claim(req("b", maxNode, n, p.mark(1)))
	if b.Node != n {
		t.Fatalf("b preferred released node %d, got %d", n, b.Node)
	}
	p.floorIs(b, p.mark(3), "a claim after a release below the mark (and another owner's releases)")
	p.release(node.Release{Node: n, Owner: "b", Mark: p.mark(2), Exact: true})
	c := p.claim(req("c", maxNode, n, p.mark(1)))
	if c.Node != n {
		t.Fatalf("c preferred released node %d, got %d", n, c.Node)
	}
	p.floorIs(c, p.mark(2), "a claim after an exact release below the mark")
	p.release(node.Release{Node: n, Owner: "c", Mark: p.mark(5)})
	d := p.claim(req("d", maxNode, n, p.mark(1)))
	if d.Node != n {
		t.Fatalf("d preferred released node %d, got %d", n, d.Node)
	}
	p.floorIs(d, p.mark(5), "a claim after a release above the mark")
}

// marksRise: a claim, a renewal and a release (not exact) with a mark
// below the node's never lower it.
func marksRise(e *env) {
	p := e.proto()
	t := p.t
	const maxNode = 3
	n := p.claim(req("a", maxNode, -1, p.mark(3))).Node
	p.floorIs(p.claim(req("a", maxNode, n, p.mark(1))), p.mark(3), "the owner's claim with a lower bound")
	p.renew(p.renewal("a", n, p.mark(2)))
	p.release(node.Release{Node: n, Owner: "a", Mark: p.mark(1)})
	b := p.claim(req("b", maxNode, n, p.mark(1)))
	if b.Node != n {
		t.Fatalf("b preferred released node %d, got %d", n, b.Node)
	}
	p.floorIs(b, p.mark(3), "a claim after a lower claim, renewal and release")
}

// renewOther: a renewal by another owner fails with ErrLeaseLost (not
// ErrLapsed, not ErrForgot) and takes nothing from the owner.
func renewOther(e *env) {
	p := e.proto()
	t := p.t
	const maxNode = 3
	n := p.claim(req("a", maxNode, -1, p.mark(1))).Node
	r := p.renewal("a", n, p.mark(2))
	r.Owner = "b"
	err := p.tryRenew(r)
	wantErr(t, "another owner's renewal", err, []error{node.ErrLeaseLost}, []error{node.ErrLapsed, node.ErrForgot})
	if err := p.tryRenew(p.renewal("a", n, p.mark(2))); err != nil {
		t.Fatalf("the owner's renewal after another's: %v", err)
	}
	if c := p.claim(req("b", maxNode, n, p.mark(1))); c.Node == n {
		t.Fatalf("b took node %d, a's", n)
	}
}

// renewLapsed: the owner's renewal of its record after the TTL fails with
// ErrLeaseLost and ErrLapsed.
func renewLapsed(e *env) {
	p := e.proto()
	t := p.t
	c := req("a", 0, -1, p.mark(1))
	c.TTL, c.Horizon = shortTTL, shortTTL
	n := p.claim(c).Node
	answered := time.Now()
	time.Sleep(shortTTL + 500*time.Millisecond)
	r := p.renewal("a", n, p.mark(2))
	r.TTL, r.Horizon = shortTTL, shortTTL
	sent := time.Now()
	err := p.tryRenew(r)
	wantErr(t, fmt.Sprintf("the owner's renewal %v after its claim of TTL %v", sent.Sub(answered).Round(time.Millisecond), shortTTL),
		err, []error{node.ErrLeaseLost, node.ErrLapsed}, []error{node.ErrForgot})
}

// renewSeen: a renewal returns a Seen the next accepts; one with another
// store identity, a version above the record's, or of a node never
// claimed fails with ErrForgot and writes nothing.
func renewSeen(e *env) {
	p := e.proto()
	t := p.t
	const maxNode = 3
	n := p.claim(req("a", maxNode, -1, p.mark(1))).Node
	p.renew(p.renewal("a", n, p.mark(2)))
	p.renew(p.renewal("a", n, p.mark(3)))
	p.renew(p.renewal("a", n, p.mark(4)))
	seen := p.seen["a"]
	other := seen
	other.Ident = "nodetest-other-" + other.Ident // a store's own identity leads its Ident
	r := p.renewal("a", n, p.mark(5))
	r.Seen = other
	wantErr(t, fmt.Sprintf("a renewal with identity %q, the store's %q", other.Ident, seen.Ident), p.tryRenew(r), []error{node.ErrForgot}, nil)
	r.Seen = node.Seen{Ident: seen.Ident, Version: seen.Version + 1}
	wantErr(t, fmt.Sprintf("a renewal with version %d, the record's %d", seen.Version+1, seen.Version), p.tryRenew(r), []error{node.ErrForgot}, nil)
	m := (n + 1) % (maxNode + 1)
	r = p.renewal("a", m, p.mark(5))
	r.Seen = seen
	wantErr(t, fmt.Sprintf("a renewal of node %d, never claimed", m), p.tryRenew(r), []error{node.ErrForgot}, nil)
	c := p.claim(req("c", maxNode, m, p.mark(1)))
	if c.Node != m {
		t.Fatalf("c preferred node %d, never claimed, got %d", m, c.Node)
	}
	p.noFloor(c, "a claim after a refused renewal of the node")
	if c := p.claim(req("b", maxNode, n, p.mark(1))); c.Node == n {
		t.Fatalf("b took node %d, a's, after a's refused renewals", n)
	}
}

// horizonClaims: a claim with the large horizon, then one with a small,
// then a claim after a loss (Lost): its floor is at least the store's
// clock + the large horizon, recorded as the store-wide mark, which the
// next claim of another node starts after.
func horizonClaims(e *env) {
	p := e.proto()
	const maxNode = 7
	c := req("a", maxNode, -1, p.mark(1))
	c.Horizon = large
	p.claim(c)
	c = req("b", maxNode, -1, p.mark(1))
	c.Horizon = time.Second
	p.claim(c)
	p.lost(maxNode)
}

// lost claims after a loss with a small horizon and checks the floor
// waits out the large one, and holds for the next claim.
func (p *proto) lost(maxNode int64) {
	t := p.t
	t.Helper()
	c := req("lost", maxNode, -1, p.mark(1))
	c.Horizon, c.Lost = time.Second, true
	before := time.Now()
	r := p.claim(c)
	if want := before.Add(large - slack); r.Floor < want.UnixNano() {
		t.Errorf("a claim after a loss: floor %v after the claim was sent, want at least the largest horizon %v", time.Duration(r.Floor-before.UnixNano()), large)
	}
	if !r.Forgot {
		t.Errorf("a claim after a loss: Claimed.Forgot is false")
	}
	d := p.claim(req("next", maxNode, -1, p.mark(1)))
	if d.Floor < r.Floor {
		t.Errorf("the claim after a claim after a loss: floor %d, below the store-wide mark %d", d.Floor, r.Floor)
	}
}

// horizonRenewal: as horizonClaims, with the large horizon given by a
// renewal, and a smaller one after it.
func horizonRenewal(e *env) {
	p := e.proto()
	const maxNode = 7
	c := req("a", maxNode, -1, p.mark(1))
	c.Horizon = time.Second
	n := p.claim(c).Node
	r := p.renewal("a", n, p.mark(2))
	r.Horizon = large
	p.renew(r)
	r.Horizon, r.Seen = time.Second, p.seen["a"]
	p.renew(r)
	p.lost(maxNode)
}

// lapsedClaim: a lapsed claim's floor is at least the store's clock + the
// largest horizon, with no store-wide mark: the next claim of another
// node is not pushed.
func lapsedClaim(e *env) {
	p := e.proto()
	t := p.t
	const maxNode = 7
	c := req("a", maxNode, -1, p.mark(1))
	c.Horizon = large
	p.claim(c)
	c = req("b", maxNode, -1, p.mark(1))
	c.Horizon, c.Lapsed = time.Second, true
	before := time.Now()
	r := p.claim(c)
	if want := before.Add(large - slack); r.Floor < want.UnixNano() {
		t.Errorf("a lapsed claim: floor %v after the claim was sent, want at least the largest horizon %v", time.Duration(r.Floor-before.UnixNano()), large)
	}
	if r.Forgot {
		t.Errorf("a lapsed claim: Claimed.Forgot is true")
	}
	d := p.claim(req("c", maxNode, -1, p.mark(1)))
	p.noFloor(d, "the claim after a lapsed claim (no store-wide mark)")
}

// claimKept: a claim sets Kept exactly when it took its preferred node and
// the node's record, before the claim's write, named the claimer at a
// version not below the one the claim's Seen shows: the claimer's own
// record as its last request left it, after a claim, a renewal, or with
// Lost (a claim after a loss), or as a renewal whose answer the claimer
// never read left it since. Never for a record behind the Seen (a Seen
// ahead of every version the record had), one released since (also when
// another owner claimed it meanwhile), one never claimed, a first claim
// (Seen zero), or a claim that took another node than the one preferred.
// A harness without SetsKept has only the claims that must not set it
// checked.
func claimKept(e *env) {
	p := e.proto()
	t := p.t
	const maxNode = 7
	// kept claims c and checks Kept is want (only false is checked
	// unless the harness sets SetsKept).
	kept := func(c node.Claim, want bool, what string) node.Claimed {
		t.Helper()
		r := p.claim(c)
		if r.Kept && !want {
			t.Errorf("%s: Claimed.Kept is true (node %d, preferred %d, Seen %+v)", what, r.Node, c.Prefer, c.Seen)
		}
		if !r.Kept && want && p.kept {
			t.Errorf("%s: Claimed.Kept is false (node %d, preferred %d, Seen %+v)", what, r.Node, c.Prefer, c.Seen)
		}
		return r
	}
	own := func(owner string, n int64, bound int) node.Claim {
		c := req(owner, maxNode, n, p.mark(bound))
		c.Seen = p.seen[owner]
		return c
	}
	took := func(r node.Claimed, n int64, what string) {
		t.Helper()
		if r.Node != n {
			t.Fatalf("%s: got node %d, want the preferred %d", what, r.Node, n)
		}
	}
	n := kept(req("a", maxNode, -1, p.mark(1)), false, "a first claim (Seen zero)").Node
	took(kept(own("a", n, 1), true, "the owner's claim of its node after its claim"), n, "the owner's claim of its node")
	p.renew(p.renewal("a", n, p.mark(2)))
	took(kept(own("a", n, 2), true, "the owner's claim of its node after its renewal"), n, "the owner's claim of its node")
	c := own("a", n, 2)
	c.Lost = true
	took(kept(c, true, "the owner's claim after a loss of its node as its last request left it"), n, "a claim after a loss")
	p.renew(p.renewal("a", n, p.mark(2)))

	// A Seen ahead of the record, with the record naming the owner: the
	// store lost the write the owner saw.
	seen := p.seen["a"]
	c = own("a", n, 2)
	c.Seen.Version = seen.Version + 1
	took(kept(c, false, fmt.Sprintf("a claim with version %d, the record's %d", c.Seen.Version, seen.Version)), n, "the owner's claim of its node")
	// A Seen from before a renewal whose answer the owner never read
	// (the primary died after its standby acknowledged it): the renewal
	// moved the version, and the record is still the owner's, unbroken.
	old := p.seen["a"]
	p.renew(p.renewal("a", n, p.mark(3)))
	c = own("a", n, 3)
	c.Seen = old
	took(kept(c, true, "a claim with the Seen from before the owner's last renewal"), n, "the owner's claim of its node")
	c = own("a", n, 3)
	c.Lost = true
	c.Seen.Version--
	took(kept(c, true, fmt.Sprintf("a claim after a loss with version %d, below the record's %d", c.Seen.Version, p.seen["a"].Version)), n, "a claim after a loss")

	// Released, then claimed and released by another owner: the record was
	// rewritten. (Once the owner claims it again, the record names it at a
	// later version than it saw before the release, and the store sets Kept:
	// a lease takes it only if none of its claims since its last answered
	// request failed, since that claim may have been the one.)
	old = p.seen["a"]
	p.release(node.Release{Node: n, Owner: "a", Mark: p.mark(3)})
	took(p.claim(req("b", maxNode, n, p.mark(3))), n, "b's claim of the released node")
	p.release(node.Release{Node: n, Owner: "b", Mark: p.mark(3)})
	c = own("a", n, 3)
	c.Seen = old
	took(kept(c, false, "a claim of a node another owner claimed and released since"), n, "a's claim of the released node")

	// A node never claimed, with the Seen of another: its record is
	// missing or free.
	m := (n + 1) % (maxNode + 1)
	c = own("a", m, 3)
	took(kept(c, false, fmt.Sprintf("a claim of node %d, never claimed, with the Seen of node %d", m, n)), m, "a claim of a node never claimed")

	// The preferred node held by another: the claim takes another node,
	// never Kept, also when it is one of the claimer's own.
	k := (n + 2) % (maxNode + 1)
	took(p.claim(req("b", maxNode, k, p.mark(3))), k, "b's claim of a free node")
	c = own("a", k, 3)
	if r := kept(c, false, fmt.Sprintf("a claim preferring node %d, b's, with the Seen of its own", k)); r.Node == k {
		t.Fatalf("a took node %d, b's", k)
	}
}

// claimKeptOther: a claim preferring a node another holds, whose only
// candidate is the claimer's own expired node with its record as the
// claimer last saw it, takes that node and does not set Kept: it did not
// take the node it preferred.
func claimKeptOther(e *env) {
	p := e.proto()
	t := p.t
	const maxNode = 1
	c := req("a", maxNode, -1, p.mark(1))
	c.TTL, c.Horizon = shortTTL, shortTTL
	sent := time.Now()
	j := p.claim(c).Node
	k := 1 - j
	if r := p.claim(req("b", maxNode, k, p.mark(1))); r.Node != k {
		t.Fatalf("b preferred free node %d, got %d", k, r.Node)
	}
	seen := p.seen["a"]
	for {
		c := req("a", maxNode, k, p.mark(2))
		c.Seen = seen
		r, err := p.try(c)
		at := time.Now()
		if err == nil {
			if r.Node != j {
				t.Fatalf("a preferred node %d, b's, and took %d; want its own expired node %d", k, r.Node, j)
			}
			if r.Kept {
				t.Errorf("a claim preferring node %d, b's, took a's expired node %d with its record as a saw it: Claimed.Kept is true", k, j)
			}
			return
		}
		if !errors.Is(err, node.ErrExhausted) {
			t.Fatalf("claim with every node held: %v, want an error wrapping node.ErrExhausted", err)
		}
		if at.Sub(sent) > expiryLimit {
			t.Fatalf("node %d, claimed with TTL %v, not taken %v after", j, shortTTL, at.Sub(sent))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

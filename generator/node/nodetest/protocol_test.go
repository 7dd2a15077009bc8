package nodetest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/nodetest"
)

// memStore is a reference store in memory: the protocol of node.Store
// with a mutex, a map and a clock of its own (the system clock, behind by
// 400 ms, as another host's may be). bug names a deliberate bug to plant
// ("" for none), which one protocol case must catch.
type memStore struct {
	bug   string
	mu    sync.Mutex
	recs  map[int64]*rec
	hz    time.Duration
	floor int64 // the store-wide mark
}

type rec struct {
	owner string
	exp   time.Time
	mark  int64
	ver   int64
}

const memIdent = "mem"

func (s *memStore) now() time.Time { return time.Now().Add(-400 * time.Millisecond) }

// free reports whether c may take node n.
func (s *memStore) free(n int64, c node.Claim, now time.Time) bool {
	r := s.recs[n]
	if s.bug == "never-expire" {
		return r == nil || r.owner == "" || r.owner == c.Owner
	}
	if s.bug == "take-held" && n == c.Prefer {
		return true
	}
	return r == nil || r.owner == "" || r.owner == c.Owner || !now.Before(r.exp)
}

func (s *memStore) Claim(_ context.Context, c node.Claim) (node.Claimed, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	n := int64(-1)
	inRange := c.Prefer >= 0 && c.Prefer <= c.MaxNode
	switch s.bug {
	case "ignore-prefer":
		inRange = false
	case "prefer-out-of-range":
		inRange = c.Prefer >= 0
	}
	if inRange && s.free(c.Prefer, c, now) {
		n = c.Prefer
	}
	for i := int64(0); n < 0 && i <= c.MaxNode; i++ {
		if s.free(i, c, now) {
			n = i
		}
	}
	if n < 0 {
		switch s.bug {
		case "exhausted-nil":
			return node.Claimed{Node: 0}, nil
		case "exhausted-writes":
			for _, r := range s.recs {
				r.mark = max(r.mark, c.Bound)
			}
		}
		return node.Claimed{}, fmt.Errorf("%w: mem: all %d nodes held", node.ErrExhausted, c.MaxNode+1)
	}
	r := s.recs[n]
	if r == nil {
		r = &rec{}
		s.recs[n] = r
	}
	// Kept: the preferred node's record, before this write, as the
	// claimer last saw it or as its renewals left it since.
	var kept bool
	switch s.bug {
	case "kept-always":
		kept = true
	case "kept-never":
	case "kept-ignore-version":
		kept = n == c.Prefer && r.owner == c.Owner
	case "kept-exact-version":
		kept = n == c.Prefer && r.owner == c.Owner && r.ver == c.Seen.Version
	case "kept-any-node":
		kept = r.owner == c.Owner && c.Seen.Version > 0 && r.ver >= c.Seen.Version
	default:
		kept = n == c.Prefer && r.owner == c.Owner && c.Seen.Version > 0 && r.ver >= c.Seen.Version
	}
	floor := max(r.mark, s.floor)
	if s.bug == "floor-no-mark" {
		floor = s.floor
	}
	r.owner, r.exp, r.ver = c.Owner, now.Add(c.TTL), r.ver+1
	if s.bug == "lower-marks" {
		r.mark = c.Bound
	} else {
		r.mark = max(r.mark, c.Bound)
	}
	if s.bug == "last-horizon" {
		s.hz = c.Horizon
	} else {
		s.hz = max(s.hz, c.Horizon)
	}
	out := node.Claimed{Node: n, Seen: node.Seen{Ident: memIdent, Version: r.ver}, Kept: kept}
	if c.Lost && s.bug != "lost-ignored" {
		floor = max(floor, now.Add(s.hz).UnixNano())
		if s.bug != "no-store-mark" {
			s.floor = max(s.floor, floor)
		}
		out.Forgot = true
	}
	if c.Lapsed && s.bug != "lapsed-ignored" {
		floor = max(floor, now.Add(s.hz).UnixNano())
		if s.bug == "lapsed-store-mark" {
			s.floor = max(s.floor, floor)
		}
	}
	out.Floor = floor
	return out, nil
}

func (s *memStore) Renew(_ context.Context, q node.Renewal) (node.Seen, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	r := s.recs[q.Node]
	switch {
	case r == nil && s.bug == "missing-lost":
		return node.Seen{}, fmt.Errorf("%w: mem: node %d has no record", node.ErrLeaseLost, q.Node)
	case q.Seen.Ident != memIdent && s.bug != "ignore-ident", r == nil, r.ver < q.Seen.Version && s.bug != "ignore-version":
		return node.Seen{}, fmt.Errorf("%w: mem: renew node %d", node.ErrForgot, q.Node)
	case r.owner != q.Owner && s.bug != "renew-other":
		return node.Seen{}, fmt.Errorf("%w: mem: node %d held by %q", node.ErrLeaseLost, q.Node, r.owner)
	case !now.Before(r.exp) && s.bug == "lapsed-plain":
		return node.Seen{}, fmt.Errorf("%w: mem: node %d expired", node.ErrLeaseLost, q.Node)
	case !now.Before(r.exp) && s.bug != "renew-expired":
		return node.Seen{}, fmt.Errorf("%w: %w: mem: node %d expired", node.ErrLeaseLost, node.ErrLapsed, q.Node)
	}
	r.owner, r.exp, r.ver = q.Owner, now.Add(q.TTL), r.ver+1
	switch s.bug {
	case "lower-marks":
		r.mark = q.Bound
	case "renew-no-mark":
	default:
		r.mark = max(r.mark, q.Bound)
	}
	if s.bug != "renew-no-horizon" {
		s.hz = max(s.hz, q.Horizon)
	}
	return node.Seen{Ident: memIdent, Version: r.ver}, nil
}

func (s *memStore) Release(_ context.Context, q node.Release) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.recs[q.Node]
	if r == nil || (r.owner != q.Owner && s.bug != "release-any") {
		return nil
	}
	r.owner = ""
	switch {
	case s.bug == "release-keeps-owner":
		r.owner = q.Owner
	case q.Exact && s.bug != "exact-as-raise", !q.Exact && s.bug == "raise-as-exact":
		r.mark = q.Mark
	default:
		r.mark = max(r.mark, q.Mark)
	}
	r.ver++
	return nil
}

// memHarness is a Store-only harness on a fresh memStore per case.
func memHarness(bug string) func() nodetest.Harness {
	return func() nodetest.Harness {
		s := &memStore{bug: bug, recs: map[int64]*rec{}}
		why := "an in-memory store has no connections to cut; the protocol cases are the point here"
		return nodetest.Harness{
			SetsKept: true,
			Store: func(*testing.T, func(ctx context.Context, network, addr string) (net.Conn, error)) node.Store {
				return s
			},
			Unsupported: map[string]string{
				"EightHandles": why, "Partition": why, "Pause": why,
			},
		}
	}
}

// TestReference: the reference store passes every protocol case.
func TestReference(t *testing.T) {
	nodetest.Run(t, memHarness(""))
}

// brokenEnv names the bug the child run plants.
const brokenEnv = "NODETEST_BROKEN_STORE"

// TestBrokenChild runs the suite on a store with the bug brokenEnv names;
// only as TestBroken's child.
func TestBrokenChild(t *testing.T) {
	bug := os.Getenv(brokenEnv)
	if bug == "" {
		t.Skip("run by TestBroken")
	}
	// The reference store expires a claim at its TTL exactly: a store
	// that never does is told in seconds, not the minute a real one gets.
	nodetest.SetExpiryLimit(4 * time.Second)
	nodetest.Run(t, memHarness(bug))
}

// TestBroken: each planted bug fails the protocol case that checks it.
func TestBroken(t *testing.T) {
	if os.Getenv(brokenEnv) != "" {
		t.Skip("a child")
	}
	type run struct {
		bug, fails string
		cmd        *exec.Cmd
		out        *bytes.Buffer
	}
	var runs []run
	for bug, fails := range map[string]string{
		"ignore-prefer":       "claim-prefer",
		"prefer-out-of-range": "claim-prefer",
		"take-held":           "claim-prefer",
		"never-expire":        "claim-prefer-expired",
		"floor-no-mark":       "floor",
		"renew-no-mark":       "floor",
		"exhausted-nil":       "exhausted",
		"exhausted-writes":    "exhausted",
		"exact-as-raise":      "release",
		"release-any":         "release",
		"release-keeps-owner": "release",
		"raise-as-exact":      "marks-only-rise",
		"lower-marks":         "marks-only-rise",
		"renew-other":         "renew-other-owner",
		"lapsed-plain":        "renew-lapsed",
		"renew-expired":       "renew-lapsed",
		"ignore-ident":        "renew-seen",
		"ignore-version":      "renew-seen",
		"missing-lost":        "renew-seen",
		"last-horizon":        "horizon",
		"lost-ignored":        "horizon",
		"no-store-mark":       "horizon",
		"renew-no-horizon":    "horizon-renewal",
		"lapsed-ignored":      "lapsed-claim",
		"lapsed-store-mark":   "lapsed-claim",
		"kept-always":         "claim-kept",
		"kept-never":          "claim-kept",
		"kept-ignore-version": "claim-kept",
		"kept-exact-version":  "claim-kept",
		"kept-any-node":       "claim-kept-other-node",
	} {
		// Every child at once, not t.Parallel's GOMAXPROCS at a time: they
		// mostly sleep through the cases' TTLs.
		cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenChild$/^Protocol$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), brokenEnv+"="+bug)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run{bug, fails, cmd, &out})
	}
	for _, r := range runs {
		bug, fails := r.bug, r.fails
		t.Run(bug, func(t *testing.T) {
			err := r.cmd.Wait()
			out := r.out.Bytes()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the suite on a store with bug %s: %v, want a non-zero exit\n%s", bug, err, out)
			}
			if want := "--- FAIL: TestBrokenChild/Protocol/" + fails + " "; !strings.Contains(string(out), want) {
				t.Fatalf("the suite on a store with bug %s: no %q in its output:\n%s", bug, want, out)
			}
		})
	}
}

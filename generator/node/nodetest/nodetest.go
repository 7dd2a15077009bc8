package nodetest

import (
	"context"
	"fmt"
	"net"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator/node"
)

// Harness is what a store's test gives [Run]: a way to make the store, and
// the faults its servers can suffer. Every field but Store is optional: a
// case that needs a nil field is skipped with the reason Unsupported gives.
// A function may also call t.Skip for a variant it cannot do (Restart
// without data on a server that cannot lose it).
//
// Each case has a harness of its own, so that cases can run in parallel:
// it calls Start, then Store and the faults. The servers start as
// one primary; Replicate adds asynchronous replicas. "The primary" is the
// server Start started, also after a promotion.
type Harness struct {
	// Start starts fresh servers for one case, stopped when t ends (nil:
	// the store needs none, or shares servers; every Store call within one
	// t then reaches the same store, fresh for that t).
	Start func(t *testing.T)
	// Store returns a new store with a client of its own, for one holder,
	// whose every connection is made by dial (pass it as the client's
	// dialer). Closed when t ends.
	Store func(t *testing.T, dial func(ctx context.Context, network, addr string) (net.Conn, error)) node.Store
	// Unplug cuts s, a store Store made, off from its records for good,
	// for a store whose client makes no connection (an embedded
	// database): a cut of its holder's link calls it. Nil: cuts drop
	// connections only.
	Unplug func(s node.Store)
	// Route returns the server a connection to addr reaches now: after
	// Promote, the primary's address routes to the promoted replica, as a
	// virtual IP or a DNS name moved by a failover manager. Nil: addr.
	Route func(addr string) string
	// Replicate starts one more asynchronous replica of the primary.
	Replicate func(t *testing.T)
	// CaughtUp waits until every replica has every write so far.
	CaughtUp func(t *testing.T)
	// Detach stops the first replica receiving writes, as a broken link
	// between it and the primary; the primary keeps its other replicas.
	Detach func(t *testing.T)
	// Promote makes the first replica a primary that accepts writes, and
	// Route send new connections to it. The old primary keeps running.
	Promote func(t *testing.T)
	// Kill kills the primary, as when its host dies.
	Kill func(t *testing.T)
	// Restart stops the primary and starts it again on the same address,
	// with its data (keep) or empty; after Promote, as a primary of its own.
	Restart func(t *testing.T, keep bool)
	// Snapshot copies the store's records; restore writes the copy back in
	// place, as a restore from a backup that keeps the server's identity,
	// and if step is true then runs the operator step that the store's
	// documentation asks for after a restore.
	Snapshot func(t *testing.T) (restore func(t *testing.T, step bool))
	// Corrupt writes, into the i-th field (from 0) that node's record
	// depends on, a value the store never writes (not a number, out of
	// range), and returns the field's name as the store's errors name it
	// ("" when there are fewer fields). repair is nil for a field the store
	// must heal by itself (the node's own); else it writes the field's old
	// value back, as an operator does once the error named the field.
	Corrupt func(t *testing.T, node int64, i int) (field string, repair func(t *testing.T))
	// Forget deletes the record by which the store recognises itself (its
	// identity), under running holders.
	Forget func(t *testing.T)
	// SetsKept says the store sets [node.Claimed].Kept. Without it (a
	// store that does not set Kept yet, whose holders wait out the horizon
	// after every loss), Protocol/claim-kept checks only that Kept is
	// never set where it must not be, and skips the claims that must set
	// it.
	SetsKept bool
	// Unsupported says, by field name, why a field is nil ("Replicate":
	// "SQLite has no replicas"); or, by a case's name or group
	// ("SplitBrain"), why the store cannot have that case although it has
	// the fields the case uses.
	Unsupported map[string]string
}

// env is one case's servers and holders.
type env struct {
	t  *testing.T
	h  *Harness
	hs []*holder
}

// need skips the case unless the harness has every named capability and
// has not ruled the case or its group out.
func (e *env) need(name string, names ...string) {
	e.t.Helper()
	group, _, _ := strings.Cut(name, "/")
	for _, k := range []string{name, group} {
		if why, ok := e.h.Unsupported[k]; ok {
			e.t.Skip(k + ": " + why)
		}
	}
	v := reflect.ValueOf(e.h).Elem()
	for _, n := range names {
		if v.FieldByName(n).IsNil() {
			why := e.h.Unsupported[n]
			if why == "" {
				why = "the harness has no " + n
			}
			e.t.Skip(n + ": " + why)
		}
	}
}

// link returns a new link routed by the harness.
func (e *env) link() *link { return newLink(e.h.Route) }

// start makes a holder with a store of its own on a new link.
func (e *env) start(name string, o opts) *holder {
	e.t.Helper()
	ln := e.link()
	s := e.h.Store(e.t, ln.dial)
	if e.h.Unplug != nil {
		ln.unplug = func() { e.h.Unplug(s) }
	}
	return e.startOn(name, s, ln, o)
}

// startOn makes a holder on store s reached through ln.
func (e *env) startOn(name string, s node.Store, ln *link, o opts) *holder {
	h := start(name, s, ln, o)
	e.hs = append(e.hs, h)
	e.t.Cleanup(func() { h.halt() })
	return h
}

// check halts every holder and fails the case if any ID was returned
// twice; it returns the count of repeated IDs.
func (e *env) check() int {
	e.t.Helper()
	return e.checkBut(nil)
}

// checkBut is check, not counting the IDs of holder but.
func (e *env) checkBut(but *holder) int {
	e.t.Helper()
	var all []int64
	per := ""
	for _, h := range e.hs {
		ids := h.halt()
		if h == but {
			per += fmt.Sprintf(" %s (not counted): %d IDs;", h.name, len(ids))
			continue
		}
		all = append(all, ids...)
		per += fmt.Sprintf(" %s: %d IDs, %+v;", h.name, len(ids), h.stats())
	}
	slices.Sort(all)
	dups := 0
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			dups++
		}
	}
	e.t.Logf("%d IDs returned twice of %d;%s", dups, len(all), per)
	if dups != 0 {
		for _, h := range e.hs {
			l := h.logs.String()
			if len(l) > 4000 {
				l = "..." + l[len(l)-4000:]
			}
			e.t.Logf("holder %s's lease log:\n%s", h.name, l)
		}
		e.t.Errorf("%d IDs returned twice", dups)
	}
	return dups
}

// Run runs every case of the suite (the faults, then the protocol cases)
// as a parallel subtest of t, each with a harness that harness returns
// (cheaply: servers start in its Start).
// A case needing a capability the harness lacks is skipped with the reason
// its Unsupported gives.
func Run(t *testing.T, harness func() Harness) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := harness()
			if h.Store == nil {
				t.Fatal("nodetest: the harness has no Store")
			}
			e := &env{t: t, h: &h}
			e.need(c.name, c.needs...)
			t0 := time.Now()
			if h.Start != nil {
				h.Start(t)
			}
			c.run(e)
			t.Logf("case took %v", time.Since(t0).Round(100*time.Millisecond))
		})
	}
}

// Package failovertest runs the failover scenario of the lease stores'
// tests: holder A claims on a primary whose replica has been detached (so
// the replica never sees the claim), the replica is promoted and the
// primary dies, holder B claims on the new primary, and the test counts the
// IDs the two issued twice.
package failovertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/internal/failover"
	"github.com/idkit-go/idkit/internal/tcpproxy"
)

// Setup is one store's servers: a primary with an asynchronous replica.
type Setup struct {
	// Store returns a store reaching the servers through addr, a proxy's
	// address; each holder has its own proxy.
	Store func(t *testing.T, addr string) node.Store
	// Primary and Replica are the servers' addresses.
	Primary, Replica string
	// CaughtUp waits until the replica has every write so far.
	CaughtUp func(t *testing.T)
	// Detach stops the replica receiving writes.
	Detach func(t *testing.T)
	// Promote makes the detached replica a primary.
	Promote func(t *testing.T)
	// Kill kills the primary.
	Kill func(t *testing.T)
}

// Variant is how holder A's path to the servers behaves after the failover.
type Variant int

const (
	// Moved: A's proxy moves to the new primary once B issues, so A's next
	// renewal finds no record.
	Moved Variant = iota
	// Dead: A's path stays dead until after its lease lapsed (A issues
	// until TTL - Margin), then moves.
	Dead
)

func (v Variant) String() string { return [...]string{"moved", "dead"}[v] }

// Result is what one run measured.
type Result struct {
	Duplicates, IDs int
	// FirstID is the time from B's claim to its first ID after the
	// failover; StartFirstID the same for a start without failover.
	FirstID, StartFirstID time.Duration
	// Ahead is how far B's first ID's time reads ahead of the clock when
	// it was issued.
	Ahead time.Duration
	// Heal is the time from A's path coming back to A's first ID after
	// it healed.
	Heal time.Duration
}

// options are the lease options of a run: TTL 2 s, or
// IDKIT_FAILOVER_TTL.
func options(t *testing.T) node.LeaseOptions {
	o := node.LeaseOptions{TTL: 2 * time.Second}
	if v := os.Getenv("IDKIT_FAILOVER_TTL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("IDKIT_FAILOVER_TTL: %v", err)
		}
		o.TTL = d
	}
	return o
}

// holder is a lease and its generator issuing IDs in the background.
type holder struct {
	lease     *node.Lease
	mu        sync.Mutex
	ids       []int64
	after     time.Time // when the lease healed (zero: not yet)
	healedIDs int
	stop      chan struct{}
	done      chan struct{}
}

// start claims, makes the generator, and issues until stopped, about 50,000
// IDs a second. It returns the time from the claim to the first ID.
func start(t *testing.T, s node.Store, o node.LeaseOptions) (*holder, time.Duration, time.Duration) {
	t.Helper()
	h, took, ahead, err := try(s, o)
	if err != nil {
		t.Fatal(err)
	}
	return h, took, ahead
}

// try is start, returning its error.
func try(s node.Store, o node.LeaseOptions) (*holder, time.Duration, time.Duration, error) {
	ctx := context.Background()
	t0 := time.Now()
	l, err := node.NewLease(ctx, s, o)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("claim: %w", err)
	}
	g, err := node.NewSnowflake(ctx, l)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("generator: %w", err)
	}
	// A machine too busy to renew in time may fence the lease at first:
	// the first ID waits for it to heal, for as long as four TTLs.
	first, err := g.Next()
	for deadline := time.Now().Add(4 * o.TTL); errors.Is(err, generator.ErrFenced) && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
		first, err = g.Next()
	}
	if err != nil {
		return nil, 0, 0, fmt.Errorf("first ID: %w", err)
	}
	took := time.Since(t0)
	p, _ := g.Layout().Decompose(first)
	ahead := time.Until(p.Time)
	h := &holder{lease: l, ids: []int64{int64(first)}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		reclaims := uint64(0)
		for {
			select {
			case <-h.stop:
				return
			default:
			}
			for range 10 {
				id, err := g.Next()
				if err != nil {
					time.Sleep(time.Millisecond)
					break
				}
				h.mu.Lock()
				h.ids = append(h.ids, int64(id))
				if r := l.Stats().Reclaims; r > reclaims {
					if h.after.IsZero() {
						h.after = time.Now()
					}
					h.healedIDs++
				}
				h.mu.Unlock()
			}
			time.Sleep(150 * time.Microsecond)
		}
	}()
	return h, took, ahead, nil
}

func (h *holder) halt(t *testing.T) []int64 {
	close(h.stop)
	<-h.done
	_ = h.lease.Close(context.Background())
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ids
}

func (h *holder) healed() (bool, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.after.IsZero(), h.healedIDs
}

// Run runs the scenario once, with the wait-out on (protect) or off.
func Run(t *testing.T, s Setup, v Variant, protect bool) Result {
	t.Helper()
	failover.Off.Store(!protect)
	defer failover.Off.Store(false)
	o := options(t)
	var res Result

	// A start without failover, on a table or hash that exists.
	pw := proxy(t, s.Primary)
	w, _, _ := start(t, s.Store(t, pw.Addr()), o)
	w.halt(t)
	w, res.StartFirstID, _ = start(t, s.Store(t, pw.Addr()), o)
	w.halt(t)
	s.CaughtUp(t)
	s.Detach(t)

	pa := proxy(t, s.Primary)
	a, _, _ := start(t, s.Store(t, pa.Addr()), o)
	time.Sleep(o.TTL / 2) // A issues, renews once
	s.Promote(t)
	// The failover: the primary dies; B reaches the new primary.
	pa.Cut()
	s.Kill(t)
	pb := proxy(t, s.Replica)
	var b *holder
	var err error
	started := make(chan struct{})
	sb := s.Store(t, pb.Addr())
	go func() {
		defer close(started)
		b, res.FirstID, res.Ahead, err = try(sb, o)
	}()
	// Moved: A's path comes back while B starts (B's claim takes
	// milliseconds; its first ID may wait); Dead: after A's lease lapsed.
	if v == Moved {
		time.Sleep(100 * time.Millisecond)
	} else {
		time.Sleep(o.TTL + o.TTL/4)
	}
	moved := time.Now()
	if err := pa.MoveTo(s.Replica); err != nil {
		t.Fatal(err)
	}
	<-started
	if err != nil {
		t.Fatalf("holder B: %v", err)
	}
	// Every holder heals and issues again.
	deadline := time.Now().Add(4 * o.TTL)
	for {
		ok, n := a.healed()
		if ok && n > 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("holder A did not heal and issue again (healed %v, %d IDs since)", ok, n)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	a.mu.Lock()
	res.Heal = a.after.Sub(moved)
	a.mu.Unlock()
	time.Sleep(200 * time.Millisecond)
	// B may lapse on a busy machine (a correct fence, healed by itself),
	// but no other holder may take its node.
	if st := b.lease.Stats(); st.State == node.LeaseLost {
		t.Errorf("holder B lost its lease: %+v", st)
	}
	ids := append(a.halt(t), b.halt(t)...)
	res.IDs = len(ids)
	slices.Sort(ids)
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			res.Duplicates++
		}
	}
	return res
}

func proxy(t *testing.T, target string) *tcpproxy.Proxy {
	p, err := tcpproxy.NewFor(target, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// Check runs both variants with the wait-out off and on, and checks that
// off repeats IDs and on does not, logging what each run measured. new
// starts fresh servers for each run.
func Check(t *testing.T, name string, setup func(t *testing.T) Setup) {
	rows := ""
	defer func() { report(t, rows) }()
	for _, v := range []Variant{Moved, Dead} {
		var off, on Result
		var took time.Duration
		for _, protect := range []bool{false, true} {
			mode := "off"
			if protect {
				mode = "on"
			}
			t.Run(v.String()+"/protection-"+mode, func(t *testing.T) {
				t0 := time.Now()
				r := Run(t, setup(t), v, protect)
				t.Logf("%s %s protection %s: %d duplicates of %d IDs; first ID after failover %v (reads %v ahead), after a start without failover %v; A healed %v after its path came back; run %v",
					name, v, mode, r.Duplicates, r.IDs, r.FirstID.Round(time.Millisecond), r.Ahead.Round(time.Millisecond),
					r.StartFirstID.Round(time.Microsecond), r.Heal.Round(time.Millisecond), time.Since(t0).Round(100*time.Millisecond))
				if protect {
					on, took = r, time.Since(t0)
				} else {
					off = r
				}
				if protect && r.Duplicates != 0 {
					t.Errorf("%d duplicate IDs with the protection on", r.Duplicates)
				}
				if !protect && r.Duplicates == 0 {
					// The window for duplicates is A's remaining trust after
					// B's first ID; a machine too busy to start B within it
					// shows none. That is no fault of the code under test.
					t.Logf("no duplicate ID with the protection off: B started after A stopped trusting its lease (a busy machine?)")
				}
			})
		}
		rows += fmt.Sprintf("| %s | %s, TTL %v | %d of %d | %d of %d | %v | %v | %v | %v |\n",
			name, v, options(t).TTL, off.Duplicates, off.IDs, on.Duplicates, on.IDs, on.FirstID.Round(time.Millisecond),
			on.StartFirstID.Round(10*time.Microsecond), on.Heal.Round(time.Millisecond), took.Round(100*time.Millisecond))
	}
}

// report appends rows to the markdown table in the file IDKIT_FAILOVER_REPORT
// names, if set, writing its header first if the file is new.
func report(t *testing.T, rows string) {
	path := os.Getenv("IDKIT_FAILOVER_REPORT")
	if path == "" || t.Failed() || rows == "" {
		return
	}
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
		_, _ = f.WriteString("| store | variant | duplicates, wait-out off | duplicates, defaults | first ID after the failover | first ID, start without failover | A's first ID after its path came back | run, defaults |\n|---|---|---|---|---|---|---|---|\n")
		f.Close()
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(rows); err != nil {
		t.Error(err)
	}
}

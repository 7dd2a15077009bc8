package nodetest

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator/node"
)

// holder is one lease holder: a store of its own reached through its link,
// a lease claimed with retries, and a generator issuing as fast as it can
// until halted.
type holder struct {
	name  string
	link  *link
	o     opts
	logs  *logs
	pause sync.RWMutex // held by the suite while the holder is paused

	mu     sync.Mutex
	lease  *node.Lease
	claimT time.Duration // from the first claim attempt to the lease
	err    error         // the last claim or generator error
	fails  int           // failed claims before the lease
	ids    []int64
	last   time.Time // when the last ID was returned
	// refused counts the generator's errors once the lease is held;
	// longest is the longest time between two batches of IDs.
	refused int
	longest time.Duration

	stop, done chan struct{}
}

// logs collects a lease's log records.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) contains(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Contains(l.buf.String(), s)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// start makes a holder on store s, claiming (retrying failed claims every
// 20 ms) and issuing in the background.
func start(name string, s node.Store, ln *link, o opts) *holder {
	h := &holder{name: name, link: ln, logs: &logs{}, stop: make(chan struct{}), done: make(chan struct{})}
	o.Logger = slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h.o = o
	go h.run(s)
	return h
}

func (h *holder) stopped() bool {
	select {
	case <-h.stop:
		return true
	default:
		return false
	}
}

func (h *holder) run(s node.Store) {
	defer close(h.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-h.stop:
			cancel()
		case <-h.done:
		}
	}()
	t0 := time.Now()
	var l *node.Lease
	for {
		var err error
		l, err = node.NewLease(ctx, s, h.o.LeaseOptions, h.o.gen...)
		if err == nil {
			break
		}
		h.mu.Lock()
		h.err = err
		h.fails++
		h.mu.Unlock()
		if h.stopped() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.mu.Lock()
	h.lease, h.claimT = l, time.Since(t0)
	h.mu.Unlock()
	g, err := node.NewSnowflake(ctx, l)
	if err != nil {
		h.mu.Lock()
		h.err = err
		h.mu.Unlock()
		return
	}
	buf := make([]int64, 0, 64)
	for !h.stopped() {
		h.pause.RLock()
		for range 64 {
			id, err := g.Next()
			if err != nil {
				h.mu.Lock()
				h.err = err
				h.refused++
				h.mu.Unlock()
				break
			}
			buf = append(buf, int64(id))
		}
		h.pause.RUnlock()
		if len(buf) == 0 {
			time.Sleep(time.Millisecond)
			continue
		}
		h.mu.Lock()
		h.ids = append(h.ids, buf...)
		now := time.Now()
		if !h.last.IsZero() {
			h.longest = max(h.longest, now.Sub(h.last))
		}
		h.last = now
		h.mu.Unlock()
		buf = buf[:0]
		time.Sleep(50 * time.Microsecond)
	}
}

// Lease returns the holder's lease, nil before its claim succeeded.
func (h *holder) Lease() *node.Lease {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lease
}

// stats returns the lease's stats, the zero value before the claim.
func (h *holder) stats() node.LeaseStats {
	if l := h.Lease(); l != nil {
		return l.Stats()
	}
	return node.LeaseStats{Node: -1}
}

// lastErr returns the holder's last claim or generator error.
func (h *holder) lastErr() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// issuingAfter waits until the holder returned an ID after since, failing
// t after limit.
func (h *holder) issuingAfter(t *testing.T, since time.Time, limit time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		h.mu.Lock()
		ok := h.last.After(since)
		h.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("holder %s issued no ID %s within %v: stats %+v, last error %v\nits lease's log:\n%s", h.name, what, limit, h.stats(), h.lastErr(), h.logs)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// issuing waits for the holder's first ID.
func (h *holder) issuing(t *testing.T, limit time.Duration) {
	t.Helper()
	h.issuingAfter(t, time.Time{}, limit, "at all")
}

// renewed waits until the lease renewed n more times, failing t after limit.
func (h *holder) renewed(t *testing.T, n uint64, limit time.Duration) {
	t.Helper()
	from := h.stats().Renewals
	deadline := time.Now().Add(limit)
	for h.stats().Renewals < from+n {
		if time.Now().After(deadline) {
			t.Fatalf("holder %s did not renew %d times in %v: %+v\nlog:\n%s", h.name, n, limit, h.stats(), h.logs)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// halt stops issuing, closes the lease and returns the IDs issued.
func (h *holder) halt() []int64 {
	select {
	case <-h.stop:
	default:
		close(h.stop)
	}
	<-h.done
	if l := h.Lease(); l != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = l.Close(ctx)
		cancel()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ids
}

// failedClaims returns how many claims failed before the lease.
func (h *holder) failedClaims() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.fails
}

// healed waits until the lease claimed again (more than reclaims times)
// and then issued, failing t after limit.
func (h *holder) healed(t *testing.T, reclaims uint64, limit time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for h.stats().Reclaims <= reclaims {
		if time.Now().After(deadline) {
			t.Fatalf("holder %s did not heal %s within %v: stats %+v, last error %v", h.name, what, limit, h.stats(), h.lastErr())
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.issuingAfter(t, time.Now(), time.Until(deadline)+ttl, what)
}

// servedOrRefused waits until the holder issued or a claim of its failed:
// a store that waits for the replicas it had refuses holders on a primary
// that lost them, which leaves the case nothing to repeat. It fails t
// after limit, and logs which.
func (h *holder) servedOrRefused(t *testing.T, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		h.mu.Lock()
		issued, fails, err := len(h.ids) > 0, h.fails, h.err
		h.mu.Unlock()
		switch {
		case issued:
			return
		case fails > 0:
			t.Logf("holder %s refused on a primary without its replicas: %v", h.name, err)
			return
		case time.Now().After(deadline):
			t.Fatalf("holder %s neither issued nor was refused within %v: %+v", h.name, limit, h.stats())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stalls returns the generator's errors once the lease was held and the
// longest time between two batches of IDs.
func (h *holder) stalls() (refused int, longest time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.refused, h.longest
}

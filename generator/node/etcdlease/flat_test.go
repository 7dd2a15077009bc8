package etcdlease_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
)

// narrow is a layout of 16 IDs per millisecond, so that a holder issuing
// flat out uses every sequence value of each millisecond (and borrows
// ahead, when allowed, at once) without filling the test's memory.
var narrow = func() generator.Layout {
	l, err := generator.NewLayout(generator.LayoutSpec{Name: "narrow", TimeBits: 41, NodeBits: 10, SequenceBits: 4,
		Unit: time.Millisecond, Epoch: generator.Twitter().Spec().Epoch})
	if err != nil {
		panic(err)
	}
	return l
}()

// single is narrow with one node ID, for tests whose holders must meet on
// one node (claims without a preference take a free node at random).
var single = func() generator.Layout {
	l, err := generator.NewLayout(generator.LayoutSpec{Name: "single", TimeBits: 41, NodeBits: 0, SequenceBits: 4,
		Unit: time.Millisecond, Epoch: generator.Twitter().Spec().Epoch})
	if err != nil {
		panic(err)
	}
	return l
}()

// faultOptions are the lease options of the fault tests: TTL 2 s (renewed
// every 667 ms, trusted for 1.5 s); issue adds the narrow layout.
func faultOptions() node.LeaseOptions {
	return node.LeaseOptions{TTL: 2 * time.Second}
}

// flat is a lease and its generator issuing IDs flat out.
type flat struct {
	l    *node.Lease
	mu   sync.Mutex
	ids  []int64
	last time.Time // when the last ID was issued
	err  error     // of the start
	stop chan struct{}
	done chan struct{}
}

// issue starts a holder in the background: it claims, makes the
// generator (the narrow layout, then gen; it waits for the floor) and
// issues until halted.
func issue(s node.Store, o node.LeaseOptions, gen ...generator.SnowflakeOption) *flat {
	f := &flat{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		ctx := context.Background()
		l, err := node.NewLease(ctx, s, o, append([]generator.SnowflakeOption{generator.WithLayout(narrow)}, gen...)...)
		if err != nil {
			f.mu.Lock()
			f.err = err
			f.mu.Unlock()
			return
		}
		f.mu.Lock()
		f.l = l
		f.mu.Unlock()
		g, err := node.NewSnowflake(ctx, l)
		if err != nil {
			f.mu.Lock()
			f.err = err
			f.mu.Unlock()
			return
		}
		for {
			select {
			case <-f.stop:
				return
			default:
			}
			id, err := g.Next()
			if err != nil {
				time.Sleep(time.Millisecond)
				continue
			}
			f.mu.Lock()
			f.ids = append(f.ids, int64(id))
			f.last = time.Now()
			f.mu.Unlock()
		}
	}()
	return f
}

// started waits until the holder issued an ID, or fails t after limit.
func (f *flat) started(t *testing.T, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		f.mu.Lock()
		n, err := len(f.ids), f.err
		f.mu.Unlock()
		if err != nil {
			t.Fatalf("holder: %v", err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("holder issued nothing in %v", limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// halt stops the holder, closes its lease and returns its IDs.
func (f *flat) halt() []int64 {
	select {
	case <-f.stop:
	default:
		close(f.stop)
	}
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.l != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = f.l.Close(ctx)
		cancel()
	}
	return f.ids
}

// both returns how many IDs a and b both hold.
func both(a, b []int64) int {
	set := make(map[int64]struct{}, len(a))
	for _, id := range a {
		set[id] = struct{}{}
	}
	n := 0
	for _, id := range slices.Compact(slices.Sorted(slices.Values(b))) {
		if _, ok := set[id]; ok {
			n++
		}
	}
	return n
}

// report logs and checks the IDs two holders both returned.
func report(t *testing.T, a, b *flat) {
	t.Helper()
	ia, ib := a.halt(), b.halt()
	n := both(ia, ib)
	t.Logf("%d IDs from A, %d from B, %d returned by both", len(ia), len(ib), n)
	if len(ia) == 0 || len(ib) == 0 {
		t.Errorf("a holder issued nothing (A %d, B %d; B's start: %v)", len(ia), len(ib), b.err)
	}
	if n != 0 {
		t.Errorf("%d IDs returned by both holders", n)
	}
}

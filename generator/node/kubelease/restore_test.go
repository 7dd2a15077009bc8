package kubelease

import (
	"context"
	"errors"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/idkit-go/idkit/generator"
	"github.com/idkit-go/idkit/generator/node"
)

// twoNodes is a layout of two nodes and 16 IDs per millisecond, so that
// a third holder waits for a node, and holders issuing flat out use every
// sequence value of each millisecond without filling the test's memory.
var twoNodes = func() generator.Layout {
	l, err := generator.NewLayout(generator.LayoutSpec{Name: "two-nodes", TimeBits: 41, NodeBits: 1, SequenceBits: 4,
		Unit: time.Millisecond, Epoch: generator.Twitter().Spec().Epoch})
	if err != nil {
		panic(err)
	}
	return l
}()

// issuer is a holder issuing IDs flat out.
type issuer struct {
	mu   sync.Mutex
	l    *node.Lease
	ids  []int64
	err  error
	stop chan struct{}
	done chan struct{}
}

// issueOn starts a holder in the background: it claims (again while all
// nodes are held), makes the generator (which waits for the floor) and
// issues until halted.
func issueOn(s node.Store, o node.LeaseOptions) *issuer {
	f := &issuer{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		ctx := context.Background()
		var l *node.Lease
		for {
			var err error
			l, err = node.NewLease(ctx, s, o, generator.WithLayout(twoNodes))
			if err == nil {
				break
			}
			if !errors.Is(err, node.ErrExhausted) {
				f.mu.Lock()
				f.err = err
				f.mu.Unlock()
			}
			select {
			case <-f.stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
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
			f.mu.Unlock()
		}
	}()
	return f
}

// started waits until the holder issued an ID, or fails t after limit.
func (f *issuer) started(t *testing.T, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		f.mu.Lock()
		n, err := len(f.ids), f.err
		f.mu.Unlock()
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("holder issued nothing in %v (last claim error: %v)", limit, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// halt stops the holder, closes its lease and returns its IDs.
func (f *issuer) halt() []int64 {
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

// cutter is a network that cut closes, and refuses from then on.
type cutter struct {
	mu    sync.Mutex
	cut   bool
	conns []net.Conn
}

func (c *cutter) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut {
		return nil, errors.New("cut")
	}
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		c.conns = append(c.conns, conn)
	}
	return conn, err
}

func (c *cutter) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cut = true
	for _, conn := range c.conns {
		conn.Close()
	}
}

// TestEtcdRestoreBumpRevision: a holder with TTL 20 s used the store (the
// identity keeps its horizon); a snapshot of etcd is saved; X and Y, TTL
// 20 s, take the two nodes (node 1's object is new since the snapshot)
// and issue; Z, TTL 2 s, waits for a node, listing again and again; X's
// and Y's link is cut (they trust their nodes until TTL - Margin after
// their last renewal); etcd is restored from the snapshot with etcdutl
// snapshot restore --bump-revision --mark-compacted (etcd's advice for
// Kubernetes), and the API server restarted on it. The listing's
// resourceVersion rises, but the objects went back (node 1's is gone):
// Z's store must take it for a loss and wait out the horizon, repeating
// none of X's and Y's IDs.
func TestEtcdRestoreBumpRevision(t *testing.T) {
	faults(t)
	s := startAPIServer(t)
	etcdutl(t) // built before the clock starts
	ctx := context.Background()
	long := node.LeaseOptions{TTL: 20 * time.Second}
	w, err := node.NewLease(ctx, storeVia(t, s, "default", nil), long, generator.WithLayout(twoNodes))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	snap := saveSnapshot(t, s.etcdClient(t))
	cut := &cutter{}
	sx := storeVia(t, s, "default", cut.dial)
	x := issueOn(sx, long)
	x.started(t, 30*time.Second)
	y := issueOn(sx, long)
	y.started(t, 30*time.Second)
	z := issueOn(storeVia(t, s, "default", nil), node.LeaseOptions{TTL: 2 * time.Second})
	time.Sleep(time.Second) // Z lists the held nodes
	cut.close()
	cutAt := time.Now()
	down := s.restoreEtcdSnapshot(t, snap, "--bump-revision", "1000000000", "--mark-compacted")
	t.Logf("etcd restored, the API server back after %v", down.Round(time.Millisecond))
	z.started(t, 3*long.TTL)
	t.Logf("Z issued %v after the cut", time.Since(cutAt).Round(time.Millisecond))
	// Past X's and Y's trust (TTL - Margin after their last renewal), and
	// some IDs from Z.
	time.Sleep(max(long.TTL-time.Since(cutAt), time.Second))
	iz, ix, iy := z.halt(), x.halt(), y.halt()
	n := both(iz, ix) + both(iz, iy)
	t.Logf("%d IDs from Z, %d from X, %d from Y; %d returned twice", len(iz), len(ix), len(iy), n)
	if n != 0 {
		t.Errorf("%d IDs returned by two holders", n)
	}
}

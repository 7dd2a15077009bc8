package etcdlease_test

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// cluster is an etcd cluster of embedded members on loopback ports, each
// with a data directory of its own.
type cluster struct {
	members   []*embed.Etcd
	endpoints []string
	closed    []bool
	closing   []chan struct{}
	dir       string
}

// freePorts returns n TCP ports on 127.0.0.1 that were free a moment ago.
func freePorts(n int) ([]int, error) {
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// startCluster starts an n-member cluster with its data under dir, with
// etcd's default timing (heartbeat 100 ms, election timeout 1 s, so leases
// last at least 2 s) and without fsync, and returns once every member
// serves clients.
func startCluster(dir string, n int) (*cluster, error) {
	ports, err := freePorts(2 * n)
	if err != nil {
		return nil, err
	}
	u := func(port int) url.URL { return url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", port)} }
	initial := make([]string, n)
	for i := range n {
		pu := u(ports[2*i+1])
		initial[i] = fmt.Sprintf("m%d=%s", i, pu.String())
	}
	c := &cluster{members: make([]*embed.Etcd, n), endpoints: make([]string, n), closed: make([]bool, n), dir: dir}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		cu, pu := u(ports[2*i]), u(ports[2*i+1])
		c.endpoints[i] = cu.Host
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("m%d", i)
		cfg.Dir = fmt.Sprintf("%s/m%d", dir, i)
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cu}, []url.URL{cu}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{pu}, []url.URL{pu}
		cfg.ListenMetricsUrls = nil
		cfg.InitialCluster = strings.Join(initial, ",")
		cfg.InitialClusterToken = "idkit-etcdlease-test"
		cfg.ClusterState = embed.ClusterStateFlagNew
		// The members stop or crash within this process; the machine does
		// not lose power under them, so their WAL needs no fsync.
		cfg.UnsafeNoFsync = true
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
		wg.Go(func() {
			e, err := embed.StartEtcd(cfg)
			if err != nil {
				errs[i] = fmt.Errorf("member %d: %w", i, err)
				return
			}
			c.members[i] = e
			select {
			case <-e.Server.ReadyNotify():
			case err := <-e.Err():
				errs[i] = fmt.Errorf("member %d: %w", i, err)
			case <-time.After(time.Minute):
				errs[i] = fmt.Errorf("member %d not ready after a minute", i)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// leader returns the index of the member that leads, or -1.
func (c *cluster) leader() int {
	for i, e := range c.members {
		if e != nil && !c.closed[i] && e.Server.Leader() == e.Server.MemberID() {
			return i
		}
	}
	return -1
}

// kill stops member i as a crash would, without handing its leadership
// over, then closes its listeners in the background (close waits).
func (c *cluster) kill(i int) {
	c.closed[i] = true
	c.members[i].Server.HardStop()
	done := make(chan struct{})
	c.closing = append(c.closing, done)
	go func() {
		defer close(done)
		c.members[i].Close()
	}()
}

// close stops every member and removes the data.
func (c *cluster) close() {
	for i, e := range c.members {
		if e != nil && !c.closed[i] {
			c.closed[i] = true
			e.Close()
		}
	}
	for _, done := range c.closing {
		<-done
	}
	os.RemoveAll(c.dir)
}

// client returns a client of every member, closed when t ends.
func (c *cluster) client(t testing.TB) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   c.endpoints,
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

var (
	sharedOnce sync.Once
	sharedC    *cluster
	sharedErr  error
)

// shared returns the cluster that the tests which kill no member share,
// started on first use and stopped by TestMain.
func shared(t testing.TB) *cluster {
	t.Helper()
	sharedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "etcdlease-shared-")
		if err != nil {
			sharedErr = err
			return
		}
		start := time.Now()
		sharedC, sharedErr = startCluster(dir, 3)
		if sharedErr != nil {
			os.RemoveAll(dir)
		} else {
			t.Logf("shared 3-member cluster started in %v", time.Since(start).Round(time.Millisecond))
		}
	})
	if sharedErr != nil {
		t.Fatalf("start etcd: %v", sharedErr)
	}
	return sharedC
}

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedC != nil {
		sharedC.close()
	}
	os.Exit(code)
}

// prefixes hands each test a key prefix of its own.
var prefixes struct {
	sync.Mutex
	n int
}

func prefix(t testing.TB) string {
	prefixes.Lock()
	defer prefixes.Unlock()
	prefixes.n++
	return fmt.Sprintf("test/%s/%d/", t.Name(), prefixes.n)
}

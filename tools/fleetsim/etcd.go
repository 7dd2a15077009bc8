package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
)

// etcdCluster is the 3-member etcd cluster of a run on etcd, embedded in
// the parent process (heartbeat 100 ms, election timeout 1 s: etcd's
// defaults), with its data in a temporary directory.
type etcdCluster struct {
	members   []*embed.Etcd
	cfgs      []*embed.Config // each member's, to start it again
	endpoints []string
	dir       string
	closing   sync.WaitGroup // members a failover killed, closing
}

func startEtcd() (*etcdCluster, error) {
	const n = 3
	dir, err := os.MkdirTemp("", "fleetsim-etcd-")
	if err != nil {
		return nil, err
	}
	urls := make([]url.URL, 2*n)
	for i := range urls {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		urls[i] = url.URL{Scheme: "http", Host: l.Addr().String()}
		l.Close()
	}
	initial := make([]string, n)
	for i := range n {
		initial[i] = fmt.Sprintf("m%d=%s", i, urls[2*i+1].String())
	}
	c := &etcdCluster{members: make([]*embed.Etcd, n), cfgs: make([]*embed.Config, n), dir: dir}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("m%d", i)
		cfg.Dir = fmt.Sprintf("%s/m%d", dir, i)
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = urls[2*i:2*i+1], urls[2*i:2*i+1]
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = urls[2*i+1:2*i+2], urls[2*i+1:2*i+2]
		cfg.ListenMetricsUrls = nil
		cfg.InitialCluster = strings.Join(initial, ",")
		cfg.InitialClusterToken = "fleetsim"
		cfg.ClusterState = embed.ClusterStateFlagNew
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
		cfg.GRPCKeepAliveMinTime = 500 * time.Millisecond // the clients ping every second
		c.endpoints = append(c.endpoints, urls[2*i].Host)
		c.cfgs[i] = cfg
		wg.Go(func() {
			e, err := embed.StartEtcd(cfg)
			if err != nil {
				errs[i] = err
				return
			}
			c.members[i] = e
			select {
			case <-e.Server.ReadyNotify():
			case err := <-e.Err():
				errs[i] = err
			case <-time.After(time.Minute):
				errs[i] = errors.New("etcd member not ready after a minute")
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

func (c *etcdCluster) close() {
	for _, e := range c.members {
		if e != nil {
			e.Close()
		}
	}
	c.closing.Wait()
	os.RemoveAll(c.dir)
}

// etcdClient returns a client of the endpoints that notices a silent
// connection within 2 s and reconnects at least every 500 ms, so that
// after a partition it is back well within a TTL (gRPC's default
// reconnection backoff grows to 2 minutes).
func etcdClient(endpoints ...string) (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{
		Endpoints:            endpoints,
		DialTimeout:          2 * time.Second,
		DialKeepAliveTime:    time.Second,
		DialKeepAliveTimeout: time.Second,
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 500 * time.Millisecond},
			MinConnectTimeout: time.Second,
		})},
		Logger: zap.NewNop(),
	})
}

// etcdPrefix is the key prefix of a run's leases.
func etcdPrefix(name string) string { return name + "/" }

// dropEtcd deletes a run's keys.
func dropEtcd(c *clientv3.Client, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = c.Delete(ctx, etcdPrefix(name), clientv3.WithPrefix())
}

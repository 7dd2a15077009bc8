package etcdlease_test

import (
	"context"
	"fmt"
	"log"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/etcdlease"
)

// A lease on an etcd cluster, and a Snowflake generator on its node ID.
// (Compiled, not run: it needs a cluster.)
func Example() {
	ctx := context.Background()
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{"etcd-0:2379", "etcd-1:2379", "etcd-2:2379"},
		DialTimeout: 5 * time.Second,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	store := etcdlease.NewStore(client, etcdlease.StoreOptions{Prefix: "myapp/node_leases/"})
	lease, err := node.NewLease(ctx, store, node.LeaseOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer lease.Close(ctx)

	gen, err := node.NewSnowflake(ctx, lease) // hand gen to gormplugin.WithSnowflake, etc.
	if err != nil {
		log.Fatal(err)
	}
	id, err := gen.Next()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(lease.Node(), id)
}

package kubelease_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/kubelease"
)

// A pod's lease on the Lease objects of its own namespace, with the
// service account's credentials.
func Example() {
	ctx := context.Background()
	cfg, err := rest.InClusterConfig()
	if err != nil {
		log.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		log.Fatal(err)
	}
	store := kubelease.NewStore(cs.CoordinationV1(), kubelease.StoreOptions{}) // in the pod's namespace
	lease, err := node.NewLease(ctx, store, node.LeaseOptions{TTL: 10 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer lease.Close(ctx)
	g, err := node.NewSnowflake(ctx, lease)
	if err != nil {
		log.Fatal(err)
	}
	id, err := g.Next()
	fmt.Println(id, err)
}

package redislease_test

import (
	"context"
	"log"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idkit-go/idkit/generator/node"
	"github.com/idkit-go/idkit/generator/node/redislease"
)

// A service claims a node ID in Redis and makes its Snowflake IDs on it.
func Example() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()

	store := redislease.NewStore(client, redislease.StoreOptions{})
	lease, err := node.NewLease(ctx, store, node.LeaseOptions{TTL: 10 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer lease.Close(ctx) // records the last issued time and frees the node

	g, err := node.NewSnowflake(ctx, lease)
	if err != nil {
		log.Fatal(err)
	}
	id, err := g.Next() // fails with generator.ErrFenced once the lease is not safe
	if err != nil {
		log.Fatal(err)
	}
	log.Println("node", lease.Node(), "id", id)
}

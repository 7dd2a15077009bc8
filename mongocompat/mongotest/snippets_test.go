package mongotest_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/idkit-go/idkit/mongocompat/mongotest"
)

// TestOrders is the README's test against the shared server (this
// package's TestMain starts it): it connects and pings.
func TestOrders(t *testing.T) {
	client, err := mongo.Connect(options.Client().ApplyURI(mongotest.URI(t)))
	// ... one server per test binary: use a database name of the test's own
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(context.Background())
	if err := client.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}

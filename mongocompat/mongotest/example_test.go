package mongotest_test

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/idkit-go/idkit/mongocompat/mongotest"
)

// A program (or a TestMain) starts the server with Start and stops it with
// Close; tests call mongotest.URI(t) instead, after
// func TestMain(m *testing.M) { os.Exit(mongotest.Main(m)) }.
func ExampleStart() {
	srv, err := mongotest.Start() // embedded FerretDB, or IDKIT_MONGODB_URI
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()))
	if err != nil {
		panic(err)
	}
	defer client.Disconnect(context.Background())
	fmt.Println(client.Ping(context.Background(), nil))
	// Output: <nil>
}

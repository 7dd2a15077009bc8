// Command gqlgen serves a small GraphQL API made with gqlgen whose custom
// scalars ObjectID and Snowflake are idkit's types, mapped in gqlgen.yml:
//
//	go run ./examples/gqlgen            # serves http://localhost:8080/query
//	go generate ./examples/gqlgen       # regenerates graph/generated.go
//
// Posts are kept in memory (graph.Resolver); each is keyed by an ObjectID
// and names its author by a Snowflake, written in results as a string.
package main

//go:generate go run github.com/99designs/gqlgen@v0.17.98 generate

import (
	"log"
	"net/http"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/idkit-go/idkit/examples/gqlgen/graph"
)

// newHandler returns the GraphQL handler over a fresh in-memory resolver,
// accepting queries by POST (JSON) and GET.
func newHandler() (*handler.Server, error) {
	r, err := graph.NewResolver()
	if err != nil {
		return nil, err
	}
	srv := handler.New(graph.NewExecutableSchema(graph.Config{Resolvers: r}))
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	return srv, nil
}

func main() {
	h, err := newHandler()
	if err != nil {
		log.Fatal(err)
	}
	http.Handle("/query", h)
	log.Print("GraphQL at http://localhost:8080/query")
	log.Fatal(http.ListenAndServe("localhost:8080", nil))
}

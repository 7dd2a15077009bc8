package generator

import "context"

// NodeSource finds a node ID for a generator: id, err := src.NodeID(ctx),
// then pass id to [NewSnowflake] or a meteor generator. Package
// [github.com/idkit-go/idkit/generator/node] has sources from the
// environment, a StatefulSet ordinal, the private IP and a database
// registry. Implementations in idkit are safe for concurrent use.
type NodeSource interface {
	// NodeID returns a node ID, or an error explaining why there is none.
	NodeID(ctx context.Context) (int64, error)
}

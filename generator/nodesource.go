package generator

import "context"

// NodeSource finds a node ID to pass to a generator: id, err :=
// src.NodeID(ctx). Package [github.com/idkit-go/idkit/generator/node] has
// sources.
type NodeSource interface {
	// NodeID returns a node ID, or an error explaining why there is none.
	NodeID(ctx context.Context) (int64, error)
}
